/**
 * Parent side of the reaper (see reaper-script.ts): start it, tell it what to clean up if
 * this process dies without running its handlers, and dismiss it on a clean shutdown.
 */
import { spawn } from "node:child_process";
import type { Writable } from "node:stream";
import { processStartTime } from "./processes.js";
import { REAPER_SCRIPT } from "./reaper-script.js";

export interface Reaper {
  readonly pid: number;
  trackProcess(pid: number): void;
  forgetProcess(pid: number): void;
  trackDir(path: string): void;
  forgetDir(path: string): void;
  /** Clean shutdown: the reaper exits without touching anything. */
  dismiss(): void;
}

/** Starts a reaper whose argv carries `runId` (so tests can find every process of a run). */
export async function startReaper(runId: string): Promise<Reaper> {
  const args = ["--input-type=module", "-e", REAPER_SCRIPT, "lockcheck-reaper", "--lockcheck-run", runId];
  const child = spawn(process.execPath, args, {
    detached: true,
    stdio: ["pipe", "pipe", "ignore"],
  });
  const stdin = child.stdin as Writable;
  const stdout = child.stdout!;
  stdout.setEncoding("utf8");
  let seen = "";
  await new Promise<void>((resolve, reject) => {
    const onData = (chunk: string): void => {
      seen += chunk;
      if (seen.includes("ready\n")) {
        stdout.off("data", onData);
        resolve();
      }
    };
    stdout.on("data", onData);
    child.once("error", reject);
    child.once("exit", (code) => reject(new Error(`reaper exited early with code ${code}`)));
  });
  stdout.destroy();
  child.unref();
  // The pipe must not keep this process alive; the kernel closes it when we die.
  (stdin as Writable & { _handle?: { unref?: () => void } })._handle?.unref?.();
  const pid = child.pid!;
  let dismissed = false;
  const send = (line: string): void => {
    if (!dismissed && stdin.writable) stdin.write(`${line}\n`);
  };
  return {
    pid,
    trackProcess(p) {
      const start = processStartTime(p);
      if (start !== null) send(`proc ${p} ${start}`);
    },
    forgetProcess: (p) => send(`forget ${p}`),
    trackDir: (path) => send(`dir ${path}`),
    forgetDir: (path) => send(`forgetdir ${path}`),
    dismiss() {
      if (dismissed) return;
      send("bye");
      dismissed = true;
      stdin.end();
    },
  };
}
