/**
 * `pause-in-call` in a client child: the recorder counts invokes per call kind; at the
 * `occurrence`-th one a schedule names, the child's own timer stops the child `afterMs` later
 * (the same moment the simulator pauses it: a timer of the client, which a frozen client
 * fires only once it runs again). The child stamps the time, tells the parent (which records
 * the pause and SIGCONTs it `durationMs` after that stamp), and SIGSTOPs itself. Timing it
 * here, not in the parent, keeps the stop within the call: the child stamped the invoke, and
 * an in-flight call leaves its event loop idle, so the timer fires on time.
 */
import type { CallKind, PauseClocks } from "../../schedule/schedule.js";
import { countingInvokes } from "../../workload/calls-in-flight.js";
import type { ClientRecorder } from "../../workload/client.js";
import { noSoonerThan } from "../no-sooner-than.js";
import { afterNextWrite } from "./after-write.js";
import type { ClientClock } from "./clock.js";
import type { ChildMessage } from "./protocol.js";
import { stopSelf } from "./stop-self.js";

const origin = process.hrtime.bigint();
const nowNs = (): number => Number(process.hrtime.bigint() - origin);

export interface PauseInCallSpec {
  call: CallKind;
  occurrence: number;
  afterMs: number;
  durationMs: number;
  clocks?: PauseClocks;
}

/** What the parent records for a pause that landed; `inCall`: the call had not completed yet. */
export type PauseInCallFired = PauseInCallSpec & { inCall: boolean };

export function withPausesInCall(
  rec: ClientRecorder,
  faults: readonly PauseInCallSpec[],
  stopSelf: (fired: PauseInCallFired) => void,
): ClientRecorder {
  if (faults.length === 0) return rec;
  return countingInvokes(rec, (call, occurrence, stillOpen) => {
    for (const f of faults) {
      if (f.call !== call || f.occurrence !== occurrence) continue;
      const fire = () => stopSelf({ ...f, inCall: stillOpen() });
      // After 0 ms: once the call's requests are written, before a reply is read (after-write.ts).
      if (f.afterMs === 0) afterNextWrite(fire);
      else noSoonerThan(nowNs() + f.afterMs * 1e6, nowNs, fire);
    }
  });
}

/**
 * `withPausesInCall` for a client process: at each pause it tells the parent (`send`) when it
 * stops, with the time since the run's start, and stops itself (stop-self.ts).
 */
export function selfStoppingPausesInCall(
  rec: ClientRecorder,
  faults: readonly PauseInCallSpec[],
  send: (msg: ChildMessage, then: () => void) => void,
  sinceStartNs: () => number,
  clock: ClientClock,
): ClientRecorder {
  return withPausesInCall(rec, faults, (fired) => {
    send({ type: "pause-in-call", ...fired, time: sinceStartNs() }, () => stopSelf(clock, fired.clocks));
  });
}
