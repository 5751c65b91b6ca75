/**
 * Shared helpers of the real-server tests: binary requirements (fail in CI, skip with a
 * printed reason elsewhere), leftover detection, and schedule building.
 */
import { readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { type BinaryName, findBinary } from "../../src/real/cluster/binaries.js";
import type { Fault, Schedule, ScheduleOptions } from "../../src/schedule/schedule.js";

/**
 * Which of `names` are missing. In CI a missing binary is an error (the test must fail, not
 * skip silently); outside CI the caller skips, and the reason is printed.
 */
export function missingBinaries(names: readonly BinaryName[]): string[] {
  const missing = names.flatMap((n) => {
    const r = findBinary(n);
    return r.ok ? [] : [r.error];
  });
  if (missing.length > 0) {
    if (process.env.CI)
      throw new Error(`real-server tests need these binaries in CI:\n${missing.join("\n")}`);
    process.stderr.write(`skipping real-server tests: ${missing.join("; ")}\n`);
  }
  return missing;
}

/**
 * Live (non-zombie) processes whose command line contains `needle`, as "pid cmd" lines, read
 * straight from /proc (like `pgrep -af`, without depending on procps being installed: a
 * missing pgrep must not make every leftover check pass vacuously).
 */
export function processesMatching(needle: string): string[] {
  if (needle === "") throw new Error("processesMatching: empty needle would match everything");
  const out: string[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    if (pid === process.pid) continue;
    let cmd: string;
    let stat: string;
    try {
      cmd = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ").trim();
      stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    } catch {
      continue; // gone meanwhile
    }
    const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
    if (state === "Z" || state === "X" || !cmd.includes(needle)) continue;
    out.push(`${pid} ${cmd}`);
  }
  return out;
}

/** Processes of ours in a stopped state (T), among those matching `needle`. */
export function stoppedProcessesMatching(needle: string): string[] {
  return processesMatching(needle).filter((l) => {
    const pid = Number(l.split(" ")[0]);
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) === "T";
    } catch {
      return false;
    }
  });
}

/** Temp dirs whose name contains `needle`. */
export function tempDirsMatching(needle: string): string[] {
  return readdirSync(tmpdir()).filter((n) => n.includes(needle));
}

/** Polls `check` until it returns an empty list or `timeoutMs` passes; returns the last list. */
export async function waitForNone(check: () => string[], timeoutMs: number): Promise<string[]> {
  const deadline = Date.now() + timeoutMs;
  let last = check();
  while (last.length > 0 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
    last = check();
  }
  return last;
}

export function schedule(
  target: string,
  resource: Schedule["resource"],
  options: Partial<ScheduleOptions> & Pick<ScheduleOptions, "servers" | "ttlMs">,
  clients: Schedule["clients"],
  faults: Fault[],
): Schedule {
  return {
    version: 1,
    target,
    resource,
    seed: 1,
    options: {
      lockName: "lock",
      callTimeoutMs: 500,
      horizonMs: 4000,
      latencyMs: { min: 0, max: 0 },
      lossRate: 0,
      ...options,
    },
    clients,
    faults,
  };
}

/**
 * A shared-servers session's run (redis:lease, one server): client 0 acquires and holds for a
 * long time; client 1 tries once after 300 ms.
 */
export function holdAndTry(faults: Schedule["faults"]): Schedule {
  return schedule(
    "redis:lease",
    "unfenced",
    { servers: 1, ttlMs: 5000, callTimeoutMs: 300, horizonMs: 1500 },
    [
      { id: 0, cycles: [{ thinkMs: 0, holdMs: 900, writes: 1 }] },
      { id: 1, cycles: [{ thinkMs: 300, holdMs: 0, writes: 0 }] },
    ],
    faults,
  );
}
