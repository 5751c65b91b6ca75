/**
 * One run, checked: execute a schedule on a target and run the checkers over its history.
 * A violation is any safety checker (SAFETY_CHECKERS) concluding `valid: false`; "unknown"
 * (a violation that depends on `info` ops) is not counted as one.
 */
import { type CheckerName, checkOps, SAFETY_CHECKERS } from "../checkers/index.js";
import type { Verdict } from "../checkers/verdict.js";
import type { Op } from "../history/op.js";
import type { Schedule } from "../schedule/schedule.js";
import type { Target, TargetSession } from "../targets/target.js";
import { eventLoopTurn } from "../util/event-loop-turn.js";

export interface CheckedRun {
  schedule: Schedule;
  ops: Op[];
  verdicts: Verdict[];
  /** True if a safety checker found a violation. */
  violation: boolean;
  stats: Record<string, number>;
}

const SAFETY: readonly string[] = SAFETY_CHECKERS;

export function isViolation(verdicts: readonly Verdict[]): boolean {
  return verdicts.some((v) => SAFETY.includes(v.checker) && v.valid === false);
}

/**
 * Runs `schedule` on `target` and checks it. `checkers` defaults to every streaming checker
 * (liveness included, for reports); pass SAFETY_CHECKERS on hot paths.
 */
export async function runAndCheck(
  target: Target,
  schedule: Schedule,
  checkers?: readonly CheckerName[],
): Promise<CheckedRun> {
  await eventLoopTurn();
  const run = await target.run(schedule);
  const verdicts = checkOps(run.ops, checkers);
  return { schedule, ops: run.ops, verdicts, violation: isViolation(verdicts), stats: run.stats };
}

/** `runAndCheck` on a real target's session: the run ends where `stopWhen` says, if it says. */
export async function runAndCheckOn(
  session: TargetSession,
  schedule: Schedule,
  stopWhen?: (ops: Op[]) => boolean,
): Promise<CheckedRun> {
  const run = await session.run(schedule, stopWhen);
  const verdicts = checkOps(run.ops);
  return { schedule, ops: run.ops, verdicts, violation: isViolation(verdicts), stats: run.stats };
}

/** Whether `schedule` still produces a safety violation on `target` (for shrinking). */
export async function violates(target: Target, schedule: Schedule): Promise<boolean> {
  return (await runAndCheck(target, schedule, SAFETY_CHECKERS)).violation;
}
