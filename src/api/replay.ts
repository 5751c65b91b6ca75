/**
 * `replayRun(path, options)`: what `lockcheck replay` does between its flags and its output:
 * load a saved schedule (a schedule.json or a run folder), run it again on its target (or
 * another), check it, and with `twice` run it once more and compare the two histories.
 */
import { combineValidity, type Validity } from "../checkers/verdict.js";
import { err, type InputError, ok, type Result } from "../result.js";
import { type ReplayOptions, type ReplayResult, replaySchedule } from "../runner/replay.js";

export type { RunOutcome } from "../runner/replay.js";

import { loadScheduleArg } from "./schedule-arg.js";

/** What a printed command adds to run where the servers ran (` --cluster docker` and its images, or nothing). */
export { placementFlags } from "../runner/run-folder.js";

export interface ReplayReport extends ReplayResult {
  /** Combined verdict of the run; with `runs`, of every run (false if any run failed). */
  valid: Validity;
}

export async function replayRun(
  path: string,
  o: ReplayOptions = {},
): Promise<Result<ReplayReport, InputError>> {
  const schedule = await loadScheduleArg(path);
  if (!schedule.ok) return schedule;
  const replayed = await replaySchedule(schedule.value, o);
  if (!replayed.ok) return err(replayed.error);
  const { run, outcomes } = replayed.value;
  const valid = combineValidity([...run.verdicts.map((v) => v.valid), ...outcomes.map((o) => o.valid)]);
  return ok({ ...replayed.value, valid });
}
