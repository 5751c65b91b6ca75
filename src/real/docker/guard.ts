/**
 * Guarantees that a run's containers and networks are removed however lockcheck ends:
 *
 * - normal teardown: the cluster removes them itself, then `settle()`s the guard;
 * - exit, an uncaught error, SIGINT, SIGTERM: an undo action (hygiene/undo.ts) runs the
 *   cleaner synchronously, so they are gone before the process is;
 * - SIGKILL: the watcher (cleaner-main.ts --watch) sees its stdin close and removes them.
 *
 * `lockcheck clean` covers whatever is left when even the watcher could not run.
 */
import { spawn, spawnSync } from "node:child_process";
import type { Writable } from "node:stream";
import { nodeCommand, siblingEntry } from "../hygiene/processes.js";
import { registerUndo } from "../hygiene/undo.js";

export interface RunGuard {
  readonly runId: string;
  /** The run's objects are all removed: stop watching, drop the undo action. */
  settle(): void;
}

/** How long the exit handler waits for the cleaner before giving up (then the watcher tries). */
const SYNC_CLEAN_TIMEOUT_MS = 60_000;

function cleanerCommand(runId: string, watch: boolean): { command: string; args: string[] } {
  const { command, args } = nodeCommand(siblingEntry(import.meta.url, "./cleaner-main"));
  return { command, args: [...args, "--run", runId, ...(watch ? ["--watch"] : [])] };
}

async function startWatcher(runId: string): Promise<Writable> {
  const { command, args } = cleanerCommand(runId, true);
  const child = spawn(command, args, { detached: true, stdio: ["pipe", "pipe", "inherit"] });
  const stdout = child.stdout!;
  stdout.setEncoding("utf8");
  await new Promise<void>((resolve, reject) => {
    let seen = "";
    stdout.on("data", (chunk: string) => {
      seen += chunk;
      if (seen.includes("ready\n")) resolve();
    });
    child.once("error", reject);
    child.once("exit", (code) => reject(new Error(`docker cleanup watcher exited early (code ${code})`)));
  });
  stdout.destroy();
  child.unref();
  const stdin = child.stdin!;
  // The pipe must not keep lockcheck alive; the kernel closes it when lockcheck dies.
  (stdin as Writable & { _handle?: { unref?: () => void } })._handle?.unref?.();
  return stdin;
}

/** Starts guarding run `runId`; call before creating anything labelled with it. */
export async function guardRun(runId: string): Promise<RunGuard> {
  const watcher = await startWatcher(runId);
  let settled = false;
  const undo = registerUndo(`docker containers and networks of run ${runId}`, () => {
    const { command, args } = cleanerCommand(runId, false);
    spawnSync(command, args, { stdio: ["ignore", "ignore", "inherit"], timeout: SYNC_CLEAN_TIMEOUT_MS });
  });
  return {
    runId,
    settle() {
      if (settled) return;
      settled = true;
      undo.cancel();
      if (watcher.writable) watcher.end("bye\n");
    },
  };
}
