/**
 * pause-in-call on real servers: a client SIGSTOPped `afterMs` after it invoked its
 * `occurrence`-th call of a kind. The child times and performs the stop itself
 * (client/pause-in-call.ts: it stamped the invoke, and its event loop is idle while the call
 * is in flight, so the stop lands on time); the parent treats the stop like a `pause-at` one
 * (pause-at.ts: wait for the kernel to report it stopped, record it at the child's stamp,
 * SIGCONT `durationMs` later). Here: which faults go to which child, and what is recorded.
 */
import { clocksField, clocksLabel } from "../../schedule/faults/pause-clocks.js";
import type { Fault } from "../../schedule/schedule.js";
import type { PauseInCallFired, PauseInCallSpec } from "../client/pause-in-call.js";
import type { PauseRequest } from "../clients.js";

/** The `pause-in-call` faults of one client, as its child process gets them. */
export function pauseInCallSpecs(faults: readonly Fault[], clientId: number): PauseInCallSpec[] {
  return faults.flatMap((f) =>
    f.kind === "pause-in-call" && f.client === clientId
      ? [
          {
            call: f.call,
            occurrence: f.occurrence,
            afterMs: f.afterMs,
            durationMs: f.durationMs,
            ...clocksField(f.clocks),
          },
        ]
      : [],
  );
}

/** The pause a child reported as it stopped itself: recorded with the call and whether it was still open. */
export function pauseInCallRequest(clientId: number, fired: PauseInCallFired, time: number): PauseRequest {
  const { call, occurrence, afterMs, durationMs, inCall, clocks } = fired;
  return {
    clientId,
    durationMs,
    time,
    value: { call, occurrence, afterMs, durationMs, inCall, ...clocksField(clocks) },
    label: `pause-in-call client:${clientId} ${call}#${occurrence}+${afterMs}ms${clocksLabel(clocks)}`,
  };
}
