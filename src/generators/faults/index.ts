/**
 * All fault generators, and `faultsArb`: a list of faults from the allowed categories.
 * The list shrinks toward fewer faults, each toward a shorter, earlier, smaller one.
 */
import fc from "fast-check";
import type { Fault } from "../../schedule/schedule.js";
import type { FaultBounds, FaultCategory } from "../bounds.js";
import { clockArb } from "./clock.js";
import { crashArb } from "./crash.js";
import { delayArb } from "./delay.js";
import { partitionArb } from "./partition.js";
import { pauseArb } from "./pause.js";
import { suspendArb } from "./suspend.js";

export { clockArb, clockDriftArb, clockJumpArb } from "./clock.js";
export { clientCrashArb, crashArb, serverCrashArb } from "./crash.js";
export { delayArb } from "./delay.js";
export { partitionArb } from "./partition.js";
export { clientPauseArb, pauseArb, pauseAtArb, serverPauseArb } from "./pause.js";
export { pauseInCallArb } from "./pause-in-call.js";
export { suspendArb } from "./suspend.js";

const CATEGORY_ARBS: Record<FaultCategory, (b: FaultBounds) => fc.Arbitrary<Fault>> = {
  pause: pauseArb,
  clock: clockArb,
  partition: partitionArb,
  crash: crashArb,
  delay: delayArb,
  suspend: suspendArb,
};

/** One fault from any of `b.categories`. */
export function faultArb(b: FaultBounds): fc.Arbitrary<Fault> {
  if (b.categories.length === 0) throw new RangeError("faultArb: no fault categories allowed");
  return fc.oneof(...b.categories.map((c) => CATEGORY_ARBS[c](b)));
}

/** Up to `b.maxFaults` faults; none when no category is allowed. */
export function faultsArb(b: FaultBounds): fc.Arbitrary<Fault[]> {
  if (b.categories.length === 0 || b.maxFaults === 0) return fc.constant([]);
  return fc.array(faultArb(b), { maxLength: b.maxFaults });
}
