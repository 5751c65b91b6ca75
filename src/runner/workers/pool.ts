/**
 * Starting worker threads from the built package (`fuzz-worker.js`) or from TypeScript
 * sources (vitest, tsx: `fuzz-worker.ts` through tsx's loader, registered in the thread).
 */
import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";

/** How many workers `--workers` means by default: the machine's cores. */
export function defaultWorkers(): number {
  return availableParallelism();
}

/** A worker thread running the sibling module `stem` (.js or .ts, as `fromUrl` is). */
export function startWorker(fromUrl: string, stem: string, workerData: unknown): Worker {
  if (!fromUrl.endsWith(".ts")) return new Worker(new URL(`${stem}.js`, fromUrl), { workerData });
  const entry = new URL(`${stem}.ts`, fromUrl).href;
  const tsx = import.meta.resolve("tsx/esm/api");
  const boot = `const { register } = await import(${JSON.stringify(tsx)}); register(); await import(${JSON.stringify(entry)});`;
  return new Worker(new URL(`data:text/javascript,${encodeURIComponent(boot)}`), { workerData });
}
