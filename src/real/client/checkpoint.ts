/**
 * `env.checkpoint()` of a client process: at the `occurrence`-th time the client reaches a
 * checkpoint that one of its `partition-at` faults names, it has the parent cut its links and
 * waits until they are cut (cut-requests.ts); at one that a `pause-at` fault names, it tells
 * the parent and then SIGSTOPs itself (about a millisecond later, see below); the parent
 * SIGCONTs it later (src/real/faults/pause-at.ts). The lock algorithm waits for the
 * checkpoint, so it does not go on in between.
 */
import { NOT_PAUSED } from "../../env/env.js";
import { clocksField } from "../../schedule/faults/pause-clocks.js";
import type { Checkpoint } from "../../schedule/schedule.js";
import type { ClientClock } from "./clock.js";
import type { CutRequests } from "./cut-requests.js";
import type { ChildConfig, ChildMessage } from "./protocol.js";
import { stopSelf } from "./stop-self.js";

export type Send = (msg: ChildMessage, then?: () => void) => void;

export function createCheckpoint(
  config: Pick<ChildConfig, "pauseAt" | "cutAt">,
  cuts: CutRequests,
  send: Send,
  sinceStartNs: () => number,
  clock: ClientClock,
): (point: Checkpoint) => Promise<void> {
  const reached = new Map<Checkpoint, number>();
  const cutAt = config.cutAt ?? [];
  return (point) => {
    const occurrence = reached.get(point) ?? 0;
    reached.set(point, occurrence + 1);
    const cut = cutAt.some((c) => c.checkpoint === point && c.occurrence === occurrence);
    const paused = pauseAt(config.pauseAt, point, occurrence, send, sinceStartNs, clock);
    if (!cut) return paused === null ? NOT_PAUSED : paused();
    const cutDone = cuts.ask({ checkpoint: point, occurrence }, sinceStartNs());
    return paused === null ? cutDone : cutDone.then(paused);
  };
}

/** The pause of a `pause-at` fault at this hit, to run once any cut is in place; null if none. */
function pauseAt(
  faults: ChildConfig["pauseAt"],
  point: Checkpoint,
  occurrence: number,
  send: Send,
  sinceStartNs: () => number,
  clock: ClientClock,
): (() => Promise<void>) | null {
  const fault = faults.find((p) => p.checkpoint === point && p.occurrence === occurrence);
  if (fault === undefined) return null;
  return () => {
    // The stop comes from a timer callback, a loop turn later (about 1 ms):
    // - the requests the algorithm just made are written by then (gRPC writes a turn after the
    //   call), so at `acquire-sent` they are on the wire, as the schedule means;
    // - continued, the process reads the replies that came while it was stopped before it runs
    //   the timers that came due, as the simulator's nodes do. Stopped in an I/O or
    //   setImmediate callback, as the IPC callback alone would be, Node runs the timers first
    //   (libuv runs them after the check phase), and a call's own deadline (gRPC's) beats its
    //   reply. test/real/etcd-pauses.test.ts shows both.
    return new Promise<void>((resolve) =>
      setTimeout(() => {
        const time = sinceStartNs();
        // Stop only once the parent has the message, so it knows to resume us. (A write to the
        // IPC channel that completes at once calls back in a tick: still in this timer callback.)
        const { durationMs, clocks } = fault;
        send(
          { type: "pause-me", checkpoint: point, occurrence, durationMs, time, ...clocksField(clocks) },
          () => {
            stopSelf(clock, clocks);
            resolve();
          },
        );
      }, 0),
    );
  };
}
