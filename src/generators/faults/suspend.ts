/**
 * Suspends: a client paused with its clocks stopped, as a suspended VM whose clocks were not
 * corrected is: on resume it reads the time it read when it stopped. At a checkpoint or some
 * ms into a call, as `pause-at` and `pause-in-call` are; most often during an acquire, where
 * a lock that checks how long acquiring took (Redlock's validity check) takes the lost time
 * for none. Shrinks as those do, and first toward a plain pause whose clocks run on.
 */
import fc from "fast-check";
import type { FaultBounds } from "../bounds.js";
import { pauseAtArb } from "./pause.js";
import { pauseInCallArb } from "./pause-in-call.js";
import type { PauseAtFault, PauseInCallFault } from "./types.js";

const stopped = <F extends PauseAtFault | PauseInCallFault>(f: F): F => ({ ...f, clocks: "stopped" });

export function suspendArb(b: FaultBounds): fc.Arbitrary<PauseAtFault | PauseInCallFault> {
  return fc.oneof(
    { arbitrary: pauseInCallArb(b).map(stopped), weight: 3 },
    { arbitrary: pauseAtArb(b).map(stopped), weight: 2 },
  );
}
