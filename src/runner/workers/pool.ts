/**
 * Starting the searchers of a parallel search: child processes running the sibling module
 * `fuzz-worker.js` (or, under vitest and tsx, `fuzz-worker.ts` through tsx's loader).
 *
 * Processes rather than worker threads: threads share their process's V8 platform (its
 * GC and compiler helper threads) and scaled worse on 2 cores — 100,000 runs of
 * sim:lease-token took 9.9 s on 2 threads against 7.9 s for two processes of 50,000 each
 * (11.7 s on one), measured side by side. A searcher ends when told to, and by itself when
 * its coordinator goes away (the IPC channel closes, even after a SIGKILL).
 */
import { type ChildProcess, fork } from "node:child_process";
import { availableParallelism } from "node:os";
import { nodeCommand, siblingEntry } from "../../real/hygiene/processes.js";
import type { FromWorker, SearchSetup, ToWorker } from "./protocol.js";

/** How many workers `--workers` means by default: the machine's cores. */
export function defaultWorkers(): number {
  return availableParallelism();
}

/** One searcher process, as its coordinator sees it. */
export interface SearchWorker {
  send(m: ToWorker): void;
  /** Ends the process; resolves once it has exited. */
  stop(): Promise<void>;
}

export interface SearchWorkerEvents {
  onMessage(m: FromWorker): void;
  /** The process failed or exited without being told to. */
  onFailure(message: string): void;
}

/** A searcher process running the sibling module `stem` (.js or .ts, as `fromUrl` is). */
export function startWorker(
  fromUrl: string,
  stem: string,
  setup: SearchSetup,
  events: SearchWorkerEvents,
): SearchWorker {
  const { command, args } = nodeCommand(siblingEntry(fromUrl, stem));
  const file = args[args.length - 1]!;
  const child: ChildProcess = fork(file, [JSON.stringify(setup)], {
    execPath: command,
    execArgv: args.slice(0, -1),
    serialization: "advanced",
    stdio: ["ignore", "ignore", "inherit", "ipc"],
  });
  let stopping = false;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.on("message", (m: FromWorker) => events.onMessage(m));
  child.on("error", (e) => {
    if (!stopping) events.onFailure(e.message);
  });
  child.on("exit", (code, signal) => {
    if (!stopping) events.onFailure(`a worker exited early (${signal ?? `code ${code}`})`);
  });
  return {
    send(m) {
      if (child.connected) child.send(m);
    },
    stop() {
      stopping = true;
      if (child.exitCode === null && child.signalCode === null) child.kill();
      return exited;
    },
  };
}
