/**
 * A client's side of `partition-at`: at a point where the schedule cuts it off, the client
 * asks the parent to cut its links (its nemesis owns the proxies); at a checkpoint itself it
 * waits until they are cut, so that its next request meets the partition on every run.
 */
import type { Send } from "./checkpoint.js";
import type { CheckpointFaultPoint } from "./protocol.js";

export interface CutRequests {
  /** Asks for the cuts of this point; settles once the parent says they are in place. */
  ask(point: CheckpointFaultPoint, timeNs: number): Promise<void>;
  /** The parent's `cut-done` for `point`. */
  done(point: CheckpointFaultPoint): void;
}

const keyOf = (p: CheckpointFaultPoint): string => `${p.checkpoint}#${p.occurrence}+${p.afterMs ?? 0}`;

export function createCutRequests(send: Send): CutRequests {
  const waiting = new Map<string, () => void>();
  return {
    ask(point, timeNs) {
      return new Promise<void>((resolve) => {
        waiting.set(keyOf(point), resolve);
        send({ type: "cut-me", ...point, time: timeNs });
      });
    },
    done(point) {
      const key = keyOf(point);
      waiting.get(key)?.();
      waiting.delete(key);
    },
  };
}
