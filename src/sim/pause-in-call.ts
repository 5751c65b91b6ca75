/**
 * `pause-in-call` in the simulator: the client's recorder counts its invokes per call kind;
 * at the `occurrence`-th one a schedule names, a timer of the client's own pauses it `afterMs`
 * later for `durationMs`, whether or not the call has completed by then. It is the client's
 * timer, as in the real world (where the client process times its own stop): if the client
 * is already paused when it comes due, it fires once the client runs again. The pause is
 * recorded with `inCall`: whether the call was still open when it landed.
 */
import type { Schedule } from "../schedule/schedule.js";
import { countingInvokes } from "../workload/calls-in-flight.js";
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
  return countingInvokes(rec, (call, occurrence, stillOpen) => {
    for (const f of faults) {
      if (f.call !== call || f.occurrence !== occurrence) continue;
      setTimer(client, f.afterMs, () => {
        w.core.settled = true;
        const value = {
          call,
          occurrence,
          afterMs: f.afterMs,
          durationMs: f.durationMs,
          inCall: stillOpen(),
        };
        pauseFor(w, client, f.durationMs, value, f.clocks);
      });
    }
  });
}
