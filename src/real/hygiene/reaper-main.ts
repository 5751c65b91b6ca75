/**
 * The reaper: a tiny detached process that outlives a SIGKILLed lockcheck and cleans up
 * after it. No handler of a SIGKILLed process can run, and Node has no PR_SET_PDEATHSIG,
 * so lockcheck starts this process first and tells it, line by line on its stdin, about
 * every process and temp dir it creates:
 *
 *   proc <pid> <starttime>   a process to kill if lockcheck dies (starttime guards pid reuse)
 *   forget <pid>             that process was cleaned up normally
 *   dir <path>               a directory to remove if lockcheck dies
 *   forgetdir <path>         that directory was removed normally
 *   bye                      lockcheck is shutting down cleanly: exit without touching anything
 *
 * When stdin reaches end-of-file without `bye` (lockcheck died: the kernel closed the pipe),
 * the reaper SIGCONTs and SIGKILLs every registered process still alive with the same start
 * time, removes the registered directories, and exits.
 *
 * It is started in its own session (detached), so a Ctrl-C aimed at lockcheck's process group
 * does not take it down before it can help. Its argv carries the run id so tests can find it.
 */
import { rmSync } from "node:fs";
import { forceKill, processStartTime } from "./processes.js";

const procs = new Map<number, string>();
const dirs = new Set<string>();
let pending = "";
let done = false;

function handleLine(line: string): void {
  const [cmd, ...rest] = line.split(" ");
  const arg = rest.join(" ");
  switch (cmd) {
    case "proc": {
      const [pid, start] = rest;
      if (pid !== undefined && start !== undefined) procs.set(Number(pid), start);
      return;
    }
    case "forget":
      procs.delete(Number(arg));
      return;
    case "dir":
      dirs.add(arg);
      return;
    case "forgetdir":
      dirs.delete(arg);
      return;
    case "bye":
      done = true;
      process.exit(0);
  }
}

function reap(): void {
  for (const [pid, start] of procs) {
    if (processStartTime(pid) === start) forceKill(pid);
  }
  for (const dir of dirs) {
    try {
      rmSync(dir, { recursive: true, force: true });
    } catch {
      // Nothing more we can do from here.
    }
  }
}

process.on("SIGINT", () => {});
process.on("SIGHUP", () => {});
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk: string) => {
  pending += chunk;
  let nl = pending.indexOf("\n");
  while (nl >= 0) {
    handleLine(pending.slice(0, nl));
    pending = pending.slice(nl + 1);
    nl = pending.indexOf("\n");
  }
});
process.stdin.on("end", () => {
  if (!done) reap();
  process.exit(0);
});
// Tell the parent we are listening (it waits for this byte before registering anything).
process.stdout.write("ready\n");
