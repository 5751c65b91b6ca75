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
 * aimed at checkpoints (not kept: failed 1 of 2)"; null when none made a candidate.
 */
export function finishingLine(steps: readonly FinishingStep[]): string | null {
  if (steps.length === 0) return null;
  // Replays only count how often the result fails again: it is kept either way.
  const each = steps.map((s) =>
    s.step === "replays"
      ? `${WHAT[s.step]} (failed ${s.failed} of ${s.runs})`
      : `${WHAT[s.step]} (${s.kept ? "kept" : "not kept"}: failed ${s.failed} of ${s.runs})`,
  );
  return `last steps on real servers: ${each.join(", ")}`;
}
