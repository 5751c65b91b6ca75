/**
 * `pause-in-call` in a client child: the recorder counts invokes per call kind; at the
 * `occurrence`-th one a schedule names, the child's own timer stops the child `afterMs` later
 * (the same moment the simulator pauses it: a timer of the client, which a frozen client
 * fires only once it runs again). The child stamps the time, tells the parent (which records
 * the pause and SIGCONTs it `durationMs` after that stamp), and SIGSTOPs itself. Timing it
 * here, not in the parent, keeps the stop within the call: the child stamped the invoke, and
 * an in-flight call leaves its event loop idle, so the timer fires on time.
 */
import type { CallKind } from "../../schedule/schedule.js";
import type { ClientRecorder } from "../../workload/client.js";

export interface PauseInCallSpec {
  call: CallKind;
  occurrence: number;
  afterMs: number;
  durationMs: number;
}

/** What the parent records for a pause that landed; `inCall`: the call had not completed yet. */
export type PauseInCallFired = PauseInCallSpec & { inCall: boolean };

export function withPausesInCall(
  rec: ClientRecorder,
  faults: readonly PauseInCallSpec[],
  stopSelf: (fired: PauseInCallFired) => void,
): ClientRecorder {
  if (faults.length === 0) return rec;
  const invoked = new Map<CallKind, number>();
  const open = new Set<number>();
  return {
    invoke(fields) {
      const id = rec.invoke(fields);
      open.add(id);
      const call = fields.f;
      const occurrence = invoked.get(call) ?? 0;
      invoked.set(call, occurrence + 1);
      for (const f of faults) {
        if (f.call !== call || f.occurrence !== occurrence) continue;
        const fire = () => stopSelf({ ...f, inCall: open.has(id) });
        // After 0 ms: once the call's requests are written (setTimeout would wait ≥ 1 ms).
        if (f.afterMs === 0) setImmediate(fire);
        else setTimeout(fire, f.afterMs);
      }
      return id;
    },
    complete(id, type, fields) {
      open.delete(id);
      rec.complete(id, type, fields);
    },
  };
}
