/**
 * The kind of a violation, so that shrinking keeps the one it was given: a counterexample
 * found as a stale write must shrink to a stale write, not to some other failure a smaller
 * schedule happens to show. The kind is the safety checker that reported it (the first one,
 * in SAFETY_CHECKERS order, when several did).
 */
import { SAFETY_CHECKERS } from "../checkers/index.js";
import type { Verdict } from "../checkers/verdict.js";
import type { Op } from "../history/op.js";
import type { Schedule } from "../schedule/schedule.js";
import type { Target } from "../targets/target.js";
import { runAndCheck } from "./execute.js";
import type { ShrinkProbe } from "./shrink/shrink.js";

export type ViolationKind = (typeof SAFETY_CHECKERS)[number];

/** The safety checker that reports a violation in `verdicts`, or null if none does. */
export function violationKind(verdicts: readonly Verdict[]): ViolationKind | null {
  for (const name of SAFETY_CHECKERS) {
    if (verdicts.some((v) => v.checker === name && v.valid === false)) return name;
  }
  return null;
}

/** Whether a run shows a violation of `kind`; if so, with the run's history and that violation's anomalies. */
export function probeOf(kind: ViolationKind, ops: readonly Op[], verdicts: readonly Verdict[]): ShrinkProbe {
  const verdict = verdicts.find((v) => v.checker === kind && v.valid === false);
  if (verdict === undefined) return { fails: false };
  return { fails: true, evidence: { ops, anomalies: verdict.anomalies } };
}

/** Runs `schedule` on `target`, checked by the `kind` checker alone: does it still show that violation? */
export async function probeViolation(
  target: Target,
  schedule: Schedule,
  kind: ViolationKind,
): Promise<ShrinkProbe> {
  const run = await runAndCheck(target, schedule, [kind]);
  return probeOf(kind, run.ops, run.verdicts);
}
