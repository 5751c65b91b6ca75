/**
 * `pause-in-call` in the simulator: the client's recorder counts its invokes per call kind;
 * at the `occurrence`-th one a schedule names, a timer of the client's own pauses it `afterMs`
 * later for `durationMs`, whether or not the call has completed by then. It is the client's
 * timer, as in the real world (where the client process times its own stop): if the client
 * is already paused when it comes due, it fires once the client runs again. The pause is
 * recorded with `inCall`: whether the call was still open when it landed.
 */
import type { CallKind, Schedule } from "../schedule/schedule.js";
import type { ClientRecorder } from "../workload/client.js";
import { pauseFor } from "./nemesis.js";
import { type SimNode, setTimer } from "./node.js";
import type { SimWorld } from "./world.js";

type PauseInCall = Extract<Schedule["faults"][number], { kind: "pause-in-call" }>;

export function withPausesInCall(
  w: SimWorld,
  clientId: number,
  client: SimNode,
  rec: ClientRecorder,
): ClientRecorder {
  const faults = w.schedule.faults.filter(
    (f): f is PauseInCall => f.kind === "pause-in-call" && f.client === clientId,
  );
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
        setTimer(client, f.afterMs, () => {
          w.core.settled = true;
          const value = {
            call,
            occurrence,
            afterMs: f.afterMs,
            durationMs: f.durationMs,
            inCall: open.has(id),
          };
          pauseFor(w, client, f.durationMs, value);
        });
      }
      return id;
    },
    complete(id, type, fields) {
      open.delete(id);
      rec.complete(id, type, fields);
    },
  };
}
