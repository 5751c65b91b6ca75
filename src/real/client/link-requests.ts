/**
 * A client's side of the checkpoint faults on its links (`partition-at`, `delay-at`): at a
 * point where the schedule cuts or delays its links, the client asks the parent to do it (its
 * nemesis owns the proxies); at a checkpoint itself it waits until they are changed, so that
 * its next request meets the cut or the delay on every run.
 */
import type { Send } from "./checkpoint.js";
import { type CheckpointFaultPoint, pointKey } from "./protocol.js";

export interface LinkRequests {
  /** Asks for the link changes of this point; settles once the parent says they are in place. */
  ask(point: CheckpointFaultPoint, timeNs: number): Promise<void>;
  /** The parent's `links-changed` for `point`. */
  done(point: CheckpointFaultPoint): void;
}

export function createLinkRequests(send: Send): LinkRequests {
  const waiting = new Map<string, () => void>();
  return {
    ask(point, timeNs) {
      return new Promise<void>((resolve) => {
        waiting.set(pointKey(point), resolve);
        send({ type: "change-links", ...point, time: timeNs });
      });
    },
    done(point) {
      const key = pointKey(point);
      waiting.get(key)?.();
      waiting.delete(key);
    },
  };
}
