/**
 * `env.checkpoint()` of a client process: at the `occurrence`-th time the client reaches a
 * checkpoint that one of its `pause-at` faults names, it tells the parent and then SIGSTOPs
 * itself; the parent SIGCONTs it later (src/real/faults/pause-at.ts).
 */
import { NOT_PAUSED } from "../../env/env.js";
import type { Checkpoint } from "../../schedule/schedule.js";
import type { ChildConfig, ChildMessage } from "./protocol.js";

export type Send = (msg: ChildMessage, then?: () => void) => void;

export function createCheckpoint(
  pauseAt: ChildConfig["pauseAt"],
  send: Send,
  sinceStartNs: () => number,
): (point: Checkpoint) => Promise<void> {
  const reached = new Map<Checkpoint, number>();
  return (point) => {
    const occurrence = reached.get(point) ?? 0;
    reached.set(point, occurrence + 1);
    const fault = pauseAt.find((p) => p.checkpoint === point && p.occurrence === occurrence);
    if (fault === undefined) return NOT_PAUSED;
    const time = sinceStartNs();
    // Stop only once the parent has the message, so it knows to resume us.
    return new Promise<void>((resolve) =>
      send({ type: "pause-me", checkpoint: point, occurrence, durationMs: fault.durationMs, time }, () => {
        process.kill(process.pid, "SIGSTOP");
        resolve();
      }),
    );
  };
}
