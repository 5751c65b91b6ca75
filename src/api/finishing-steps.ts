/** The last steps of shrinking on real servers, as one line for people. */
import type { FinishingStep } from "../runner/shrink/shrink-real.js";

const WHAT: Record<FinishingStep["step"], string> = {
  "wider pauses": "pauses widened",
  "start races settled": "start races settled",
  "faults aimed": "timed faults aimed at checkpoints",
  replays: "fresh replays",
  "stepped back": "a larger schedule kept before it, replayed",
};

/**
 * E.g. "last steps on real servers: start races settled (kept: failed 2 of 2), timed faults
 * aimed at checkpoints (not kept: failed 1 of 2)"; steps the time limit left out are named
 * after those: "; no time left for: fresh replays". Null when no step made a candidate.
 */
export function finishingLine(steps: readonly FinishingStep[]): string | null {
  if (steps.length === 0) return null;
  const ran: string[] = [];
  const skipped: string[] = [];
  for (const s of steps) {
    if ("skipped" in s) skipped.push(WHAT[s.step]);
    // Replays only count how often the result fails again: it is kept either way.
    else if (s.step === "replays") ran.push(`${WHAT[s.step]} (failed ${s.failed} of ${s.runs})`);
    else ran.push(`${WHAT[s.step]} (${s.kept ? "kept" : "not kept"}: failed ${s.failed} of ${s.runs})`);
  }
  const left = skipped.length === 0 ? "" : `no time left in the limit for: ${skipped.join(", ")}`;
  return `last steps on real servers: ${ran.join(", ")}${ran.length > 0 && left !== "" ? "; " : ""}${left}`;
}
