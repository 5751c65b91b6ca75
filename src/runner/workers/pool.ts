/**
 * The search threads of this process. A thread costs about a second of CPU before it runs at
 * full speed (loading lockcheck, then V8 compiling its hot code a second time, on the same
 * cores), so a search hands its threads back here when it ends, warm, and the next search in
 * this process (gate's next target, the next `fuzz` from a test) borrows them again.
 *
 * An idle thread does not keep the process alive (it is unref'd) and ends after IDLE_MS.
 * Threads start from the built package (`fuzz-worker.js`) or from TypeScript sources (vitest,
 * tsx: `fuzz-worker.ts` through tsx's loader, registered in the thread).
 */
import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import type { FromWorker } from "./protocol.js";

/** How many workers `--workers` means by default: the machine's cores. */
export function defaultWorkers(): number {
  return availableParallelism();
}

/** An idle thread ends after this long unborrowed. */
const IDLE_MS = 30_000;

/** What a borrowed thread tells its borrower. */
export type ThreadEvent = { kind: "message"; message: FromWorker } | { kind: "lost"; reason: string };

interface PooledThread {
  worker: Worker;
  /** The borrower's handler; null while idle. */
  listener: ((e: ThreadEvent) => void) | null;
  idleTimer: NodeJS.Timeout | undefined;
  lost: boolean;
}

const idle: PooledThread[] = [];
const byWorker = new Map<Worker, PooledThread>();

/** Threads idle and warm right now. */
export function warmThreads(): number {
  return idle.length;
}

/**
 * A search thread, warm if one is idle, else a new one. `listener` gets its messages until
 * `giveBack` or `discard`.
 */
export function borrowThread(listener: (e: ThreadEvent) => void): Worker {
  const t = idle.pop() ?? startThread();
  if (t.idleTimer !== undefined) clearTimeout(t.idleTimer);
  t.idleTimer = undefined;
  t.listener = listener;
  t.worker.ref();
  return t.worker;
}

/** Returns a thread that finished its search's work (it answered `released`) to the pool. */
export function giveBack(worker: Worker): void {
  const t = byWorker.get(worker);
  if (t === undefined || t.lost) return;
  t.listener = null;
  t.worker.unref();
  t.idleTimer = setTimeout(() => discardPooled(t), IDLE_MS);
  t.idleTimer.unref();
  idle.push(t);
}

/** Ends a thread (one that may be mid-run or broken); resolves once it has stopped. */
export async function discard(worker: Worker): Promise<void> {
  const t = byWorker.get(worker);
  if (t === undefined) return;
  await discardPooled(t);
}

/** Ends every idle thread (tests, and callers that want their memory back at once). */
export async function endIdleThreads(): Promise<void> {
  await Promise.all([...idle].map(discardPooled));
}

async function discardPooled(t: PooledThread): Promise<void> {
  t.lost = true;
  t.listener = null;
  if (t.idleTimer !== undefined) clearTimeout(t.idleTimer);
  const at = idle.indexOf(t);
  if (at >= 0) idle.splice(at, 1);
  byWorker.delete(t.worker);
  await t.worker.terminate();
}

function startThread(): PooledThread {
  const worker = startWorker(import.meta.url, "./fuzz-worker");
  const t: PooledThread = { worker, listener: null, idleTimer: undefined, lost: false };
  byWorker.set(worker, t);
  worker.on("message", (message: FromWorker) => t.listener?.({ kind: "message", message }));
  const lose = (reason: string) => {
    if (t.lost) return;
    const listener = t.listener;
    void discardPooled(t);
    listener?.({ kind: "lost", reason });
  };
  worker.on("error", (e) => lose(e.message));
  worker.on("exit", (code) => lose(`a worker exited early (code ${code})`));
  return t;
}

/** A worker thread running the sibling module `stem` (.js or .ts, as `fromUrl` is). */
function startWorker(fromUrl: string, stem: string): Worker {
  if (!fromUrl.endsWith(".ts")) return new Worker(new URL(`${stem}.js`, fromUrl));
  const entry = new URL(`${stem}.ts`, fromUrl).href;
  const tsx = import.meta.resolve("tsx/esm/api");
  const boot = `const { register } = await import(${JSON.stringify(tsx)}); register(); await import(${JSON.stringify(entry)});`;
  return new Worker(new URL(`data:text/javascript,${encodeURIComponent(boot)}`));
}
