/**
 * A container as the faults see a server process (`ServerProcess`): pause/resume, crash and
 * restart, isolation from its peers. Docker calls are asynchronous while the fault interface's
 * pause/resume are not, so each node runs its container operations strictly in order on its
 * own queue; a failure is kept for the run's warnings.
 *
 * Pauses nest, as a process's do (hygiene/managed.ts) and a simulated node's: two overlapping
 * pause faults on one node keep its container frozen until the later of them ends. The
 * container itself is either paused or not, so the count lives here.
 */
import { err, ok, type Result } from "../../result.js";
import type { ServerProcess } from "../hygiene/managed.js";
import type { DockerNode } from "./cluster.js";

/** Longest a container operation may take before the queue gives up on it and moves on. */
const OPERATION_TIMEOUT_MS = 60_000;

function withTimeout<T>(op: () => Promise<T>): () => Promise<T> {
  return () => {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`no answer from the engine in ${OPERATION_TIMEOUT_MS} ms`)),
        OPERATION_TIMEOUT_MS,
      );
      timer.unref();
    });
    return Promise.race([op(), timeout]).finally(() => clearTimeout(timer));
  };
}

/** Serializes a node's container operations; failures are collected, not thrown. */
function operationQueue(label: string, failures: string[]) {
  let tail: Promise<unknown> = Promise.resolve();
  return <T>(op: () => Promise<T>): Promise<T | undefined> => {
    const next = tail.then(withTimeout(op)).catch((e: unknown) => {
      failures.push(`${label}: ${e instanceof Error ? e.message : String(e)}`);
      return undefined;
    });
    tail = next;
    return next;
  };
}

export interface NodeAdapter {
  current(): ServerProcess | null;
  crash(): Promise<void>;
  restart(): Promise<Result<void, string>>;
  /** Resolves once every operation queued so far has finished. */
  drain(): Promise<void>;
  /** Off the peer network; isolations nest (the member rejoins when the last one heals). */
  isolate(): Promise<void>;
  heal(): void;
  /** Drains the queue, then rejoins and unpauses the container, however many cuts and pauses were open. */
  undoFaults(): Promise<void>;
}

export async function adaptNode(node: DockerNode, failures: string[]): Promise<NodeAdapter> {
  const label = `container ${node.containerName} (${node.name})`;
  const enqueue = operationQueue(label, failures);
  let pauses = 0;
  const incarnation = (pid: number): ServerProcess => ({
    label,
    pid,
    hasExited: () => node.isDown(),
    isPaused: () => node.isPaused(),
    pause() {
      if (pauses++ === 0) void enqueue(() => node.pause());
    },
    resume() {
      if (pauses > 0 && --pauses === 0) void enqueue(() => node.resume());
    },
  });
  let current: ServerProcess | null = incarnation((await node.mainPid()) ?? -1);
  let isolations = 0;
  return {
    current: () => current,
    async crash() {
      current = null;
      pauses = 0; // a killed container is not paused; its restart starts unpaused
      await enqueue(() => node.crash());
    },
    async restart() {
      const restarted = await enqueue(() => node.restart());
      if (restarted === undefined) return err(`${label}: restart failed (${failures.at(-1) ?? "unknown"})`);
      if (!restarted.ok) return restarted;
      current = incarnation((await node.mainPid()) ?? -1);
      return ok(undefined);
    },
    drain: async () => {
      await enqueue(async () => {});
    },
    async isolate() {
      if (isolations++ === 0) await enqueue(() => node.isolate());
    },
    heal() {
      if (isolations > 0 && --isolations === 0) void enqueue(() => node.rejoin());
    },
    async undoFaults() {
      isolations = 0;
      pauses = 0;
      await enqueue(() => node.rejoin());
      await enqueue(() => node.resume());
    },
  };
}
