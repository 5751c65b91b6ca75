/**
 * CPU time of this process's threads, split as the parallel search's figures need it: this
 * (main) thread, the threads that were already running when the snapshot was taken (V8's
 * compiler and GC helpers, libuv's), and the rest — worker threads started since, whose time
 * stays in the process's total after they exit. Linux only (/proc/self/task); null elsewhere.
 * Resolution is the kernel's clock tick (10 ms).
 */
import { readdirSync, readFileSync } from "node:fs";

const TICK_MS = 10;

/** CPU ms of each thread of this process now, by thread id; null where /proc is not there. */
function threadCpu(): Map<number, number> | null {
  try {
    const out = new Map<number, number>();
    for (const tid of readdirSync("/proc/self/task")) {
      try {
        const stat = readFileSync(`/proc/self/task/${tid}/stat`, "utf8");
        // After "(comm) ": state is field 3, utime 14, stime 15.
        const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
        out.set(Number(tid), (Number(fields[11]) + Number(fields[12])) * TICK_MS);
      } catch {
        // The thread exited between the listing and the read.
      }
    }
    return out;
  } catch {
    return null;
  }
}

function processCpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

export interface ThreadCpuSplit {
  /** This thread. */
  main: number;
  /** Threads that already ran at the snapshot, but this one: compiler, GC, libuv. */
  helpers: number;
  /** Threads started since the snapshot (worker threads), exited or not. */
  started: number;
}

/** Starts measuring; the returned function gives the split since then, in CPU ms. */
export function measureThreadCpu(): () => ThreadCpuSplit | null {
  const before = threadCpu();
  const total0 = processCpuMs();
  return () => {
    const after = threadCpu();
    const total = processCpuMs() - total0;
    if (before === null || after === null) return null;
    let main = 0;
    let helpers = 0;
    for (const [tid, ms] of after) {
      const was = before.get(tid);
      if (was === undefined) continue;
      if (tid === process.pid) main = ms - was;
      else helpers += ms - was;
    }
    return { main, helpers, started: Math.max(0, total - main - helpers) };
  };
}
