/**
 * A client's side of `partition-at`: at a checkpoint hit where the schedule cuts it off, the
 * client asks the parent to cut its links (its nemesis owns the proxies) and waits until they
 * are cut, so that its next request meets the partition on every run.
 */
import type { Checkpoint } from "../../schedule/schedule.js";
import type { Send } from "./checkpoint.js";
import type { CheckpointHit } from "./protocol.js";

export interface CutRequests {
  /** Asks for the cuts of this hit; settles once the parent says they are in place. */
  ask(hit: CheckpointHit, timeNs: number): Promise<void>;
  /** The parent's `cut-done` for `hit`. */
  done(hit: CheckpointHit): void;
}

const keyOf = (checkpoint: Checkpoint, occurrence: number): string => `${checkpoint}#${occurrence}`;

export function createCutRequests(send: Send): CutRequests {
  const waiting = new Map<string, () => void>();
  return {
    ask(hit, timeNs) {
      return new Promise<void>((resolve) => {
        waiting.set(keyOf(hit.checkpoint, hit.occurrence), resolve);
        send({ type: "cut-me", ...hit, time: timeNs });
      });
    },
    done(hit) {
      const key = keyOf(hit.checkpoint, hit.occurrence);
      waiting.get(key)?.();
      waiting.delete(key);
    },
  };
}
