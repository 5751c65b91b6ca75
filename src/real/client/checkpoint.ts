/**
 * `env.checkpoint()` of a client process: at the `occurrence`-th time the client reaches a
 * checkpoint that one of its `partition-at` or `delay-at` faults names, it has the parent cut
 * or delay its links and waits until they are (link-requests.ts); at one that a `pause-at`
 * fault names, it tells the parent and then SIGSTOPs itself (about a millisecond later, see
 * below); the parent SIGCONTs it later (src/real/faults/pause-at.ts). The lock algorithm
 * waits for the checkpoint, so it does not go on in between. A fault with `afterMs` starts that
 * long after, by the client's own timer, while the client goes on (as pause-in-call.ts times
 * its stops).
 */
import { NOT_PAUSED } from "../../env/env.js";
import { pauseAtMark } from "../../schedule/faults/pause-at.js";
import { clocksField } from "../../schedule/faults/pause-clocks.js";
import type { Checkpoint } from "../../schedule/schedule.js";
import { noSoonerThan } from "../no-sooner-than.js";
import type { ClientClock } from "./clock.js";
import type { LinkRequests } from "./link-requests.js";
import type { CheckpointFaultPoint, ChildConfig, ChildMessage } from "./protocol.js";
import { stopSelf } from "./stop-self.js";

export type Send = (msg: ChildMessage, then?: () => void) => void;

type PauseAtSpec = ChildConfig["pauseAt"][number];

const origin = process.hrtime.bigint();
const nowNs = (): number => Number(process.hrtime.bigint() - origin);

export function createCheckpoint(
  config: Pick<ChildConfig, "pauseAt" | "linksAt">,
  links: LinkRequests,
  send: Send,
  sinceStartNs: () => number,
  clock: ClientClock,
): (point: Checkpoint) => Promise<void> {
  const reached = new Map<Checkpoint, number>();
  const linksAt = config.linksAt ?? [];
  const stop = (fault: PauseAtSpec, then: () => void): void => {
    const time = sinceStartNs();
    // Stop only once the parent has the message, so it knows to resume us. (A write to the
    // IPC channel that completes at once calls back in a tick: still in this timer callback.)
    send({ type: "pause-me", ...pauseAtMark(fault), time, ...clocksField(fault.clocks) }, () => {
      stopSelf(clock, fault.clocks);
      then();
    });
  };
  return (point) => {
    const occurrence = reached.get(point) ?? 0;
    reached.set(point, occurrence + 1);
    const here = (p: CheckpointFaultPoint) => p.checkpoint === point && p.occurrence === occurrence;
    for (const l of linksAt) {
      if (here(l) && l.afterMs !== undefined) later(l.afterMs, () => void links.ask(l, sinceStartNs()));
    }
    for (const p of config.pauseAt) {
      if (here(p) && p.afterMs !== undefined) later(p.afterMs, () => stop(p, () => {}));
    }
    const change = linksAt.find((l) => here(l) && l.afterMs === undefined);
    const pause = config.pauseAt.find((p) => here(p) && p.afterMs === undefined);
    const paused = pause === undefined ? null : () => pausedFromTimer(pause, stop);
    if (change === undefined) return paused === null ? NOT_PAUSED : paused();
    const changed = links.ask(change, sinceStartNs());
    return paused === null ? changed : changed.then(paused);
  };
}

/** Calls `fn` `afterMs` from now, never sooner (the client goes on meanwhile). */
function later(afterMs: number, fn: () => void): void {
  noSoonerThan(nowNs() + afterMs * 1e6, nowNs, fn);
}

/**
 * The pause of a `pause-at` fault at the checkpoint itself, settled once the client runs again.
 * The stop comes from a timer callback, a loop turn later (about 1 ms):
 * - the requests the algorithm just made are written by then (gRPC writes a turn after the
 *   call), so at `acquire-sent` they are on the wire, as the schedule means;
 * - continued, the process reads the replies that came while it was stopped before it runs
 *   the timers that came due, as the simulator's nodes do. Stopped in an I/O or
 *   setImmediate callback, as the IPC callback alone would be, Node runs the timers first
 *   (libuv runs them after the check phase), and a call's own deadline (gRPC's) beats its
 *   reply. test/real/etcd-pauses.test.ts shows both.
 */
function pausedFromTimer(
  fault: PauseAtSpec,
  stop: (f: PauseAtSpec, then: () => void) => void,
): Promise<void> {
  return new Promise<void>((resolve) => setTimeout(() => stop(fault, resolve), 0));
}
