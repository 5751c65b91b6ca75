/**
 * Saving a run folder: schedule.json, history.jsonl, verdict.json and report.html. The same
 * layout as the histories/ corpus entries, so a saved counterexample can be replayed,
 * re-checked, reported on and added to the corpus as it is.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { combineValidity, type Validity, type Verdict } from "../checkers/verdict.js";
import { withModuleRef } from "../custom/module-refs.js";
import { writeHistory } from "../history/jsonl.js";
import type { Op } from "../history/op.js";
import { writeReport } from "../report/write-report.js";
import { err, type InputError, ok, type Result } from "../result.js";
import type { Schedule } from "../schedule/schedule.js";

export const SCHEDULE_FILE = "schedule.json";
export const HISTORY_FILE = "history.jsonl";
export const VERDICT_FILE = "verdict.json";

export interface RunToSave {
  schedule: Schedule;
  ops: readonly Op[];
  verdicts: readonly Verdict[];
  /** Shown in the HTML report's summary. */
  replayCommand?: string;
}

/** What verdict.json holds. */
export interface VerdictFile {
  valid: Validity;
  verdicts: readonly Verdict[];
}

/** `lockcheck-out/sim-redlock-7-42`: where fuzz saves the counterexample of run 42 of seed 7. */
export function defaultRunDir(target: string, seed: number, run: number, root = "lockcheck-out"): string {
  return join(root, `${target.replace(/[^a-zA-Z0-9-]+/g, "-")}-${seed}-${run}`);
}

/** The command that replays the run saved in `dir`. */
export function replayCommand(dir: string): string {
  return `lockcheck replay ${dir}/${SCHEDULE_FILE}`;
}

/**
 * Saves a failing run in `dir` with the command that replays it (shown in its report);
 * returns that command. `replay` defaults to replayCommand(dir).
 */
export async function saveReplayableRun(
  dir: string,
  run: Omit<RunToSave, "replayCommand">,
  replay = replayCommand(dir),
): Promise<Result<string, InputError>> {
  const { schedule, ops, verdicts } = run;
  const saved = await saveRun(dir, { schedule, ops, verdicts, replayCommand: replay });
  return saved.ok ? ok(replay) : saved;
}

function jsonText(value: unknown): string {
  return `${JSON.stringify(value, (_k, v: unknown) => (typeof v === "bigint" ? v.toString() : v), 2)}\n`;
}

/** Writes the run folder `dir` (created if needed); the paths written, or why not. */
export async function saveRun(dir: string, run: RunToSave): Promise<Result<string[], InputError>> {
  const schedulePath = join(dir, SCHEDULE_FILE);
  const historyPath = join(dir, HISTORY_FILE);
  const verdictPath = join(dir, VERDICT_FILE);
  try {
    await mkdir(dir, { recursive: true });
    // A module's target: the schedule names the module, so it replays from any folder.
    await writeFile(schedulePath, jsonText(withModuleRef(run.schedule)), "utf8");
    const verdict: VerdictFile = {
      valid: combineValidity(run.verdicts.map((v) => v.valid)),
      verdicts: run.verdicts,
    };
    await writeFile(verdictPath, jsonText(verdict), "utf8");
  } catch (e) {
    return err({ file: dir, message: `cannot write the run folder: ${(e as Error).message}` });
  }
  const history = await writeHistory(historyPath, run.ops);
  if (!history.ok) return history;
  const report = await writeReport(dir, {
    ops: run.ops,
    verdicts: run.verdicts,
    schedule: run.schedule,
    title: `${run.schedule.target} (${run.schedule.resource}), seed ${run.schedule.seed}`,
    replayCommand: run.replayCommand,
  });
  if (!report.ok) return report;
  return ok([schedulePath, historyPath, verdictPath, report.value]);
}
