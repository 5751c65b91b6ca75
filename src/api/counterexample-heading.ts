import type { FuzzCounterexample } from "../runner/fuzz.js";

/** The heading above a counterexample's faults and timeline: how far it was shrunk. */
export function counterexampleHeading(
  shrink: FuzzCounterexample["shrink"],
  budgetExhausted: boolean | undefined,
): string {
  if (shrink === "not-kept" || shrink === "off") return "counterexample (as found):";
  // A pass that ran out of budget had candidates left: smaller ones may still fail.
  if (budgetExhausted === true)
    return "shrunk counterexample (shrinking stopped at its budget: it may not be minimal):";
  return "minimal counterexample:";
}
