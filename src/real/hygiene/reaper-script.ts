/**
 * The reaper's program: a tiny detached process that outlives a SIGKILLed lockcheck and
 * cleans up after it. No handler of a SIGKILLed process can run, and Node has no
 * PR_SET_PDEATHSIG, so lockcheck starts this process first and tells it, line by line on its
 * stdin, about every process and temp dir it creates:
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
 * It is plain JavaScript run with `node --input-type=module -e`, so it starts in a blink and
 * needs neither a build nor a TypeScript loader, and it depends on nothing but Node itself.
 * It ignores SIGINT and SIGHUP: a Ctrl-C aimed at lockcheck's terminal must not take it down
 * before it can help.
 */
export const REAPER_SCRIPT = String.raw`
import { readFileSync, rmSync } from "node:fs";

const procs = new Map();
const dirs = new Set();
let pending = "";
let dismissed = false;

function startTime(pid) {
  try {
    const text = readFileSync("/proc/" + pid + "/stat", "utf8");
    return text.slice(text.lastIndexOf(")") + 2).split(" ")[19] ?? null;
  } catch {
    return null;
  }
}

function kill(pid, sig) {
  try { process.kill(pid, sig); } catch {}
}

function reap() {
  for (const [pid, start] of procs) {
    if (startTime(pid) !== start) continue;
    kill(pid, "SIGCONT");
    kill(pid, "SIGKILL");
  }
  for (const dir of dirs) {
    try { rmSync(dir, { recursive: true, force: true }); } catch {}
  }
}

function handle(line) {
  const space = line.indexOf(" ");
  const cmd = space < 0 ? line : line.slice(0, space);
  const arg = space < 0 ? "" : line.slice(space + 1);
  if (cmd === "proc") {
    const [pid, start] = arg.split(" ");
    procs.set(Number(pid), start);
  } else if (cmd === "forget") procs.delete(Number(arg));
  else if (cmd === "dir") dirs.add(arg);
  else if (cmd === "forgetdir") dirs.delete(arg);
  else if (cmd === "bye") dismissed = true;
}

process.on("SIGINT", () => {});
process.on("SIGHUP", () => {});
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => {
  pending += chunk;
  for (let nl = pending.indexOf("\n"); nl >= 0; nl = pending.indexOf("\n")) {
    handle(pending.slice(0, nl));
    pending = pending.slice(nl + 1);
  }
});
process.stdin.on("end", () => {
  if (!dismissed) reap();
  process.exit(0);
});
process.stdout.write("ready\n");
`;
