/**
 * A run folder, written and read here: schedule.json, history.jsonl, verdict.json and
 * report.html, and shrink-log.txt for a counterexample shrunk on real servers. The same layout
 * as the histories/ corpus entries, so a saved counterexample can be replayed, re-checked,
 * reported on and added to the corpus as it is. `lockcheck report`
 * reads a run folder (or a history.jsonl on its own) through `loadReportInput`.
 */
import { mkdir, readdir, readFile, stat, writeFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { z } from "zod";
import { checkOps } from "../checkers/index.js";
import { combineValidity, type Validity, type Verdict } from "../checkers/verdict.js";
import { withModuleRef } from "../custom/module-refs.js";
import { readHistoryFile, writeHistory } from "../history/jsonl.js";
import type { Op } from "../history/op.js";
import type { HtmlReportInput } from "../report/html.js";
import { formatShrinkLog, SHRINK_LOG_FILE, type ShrinkLog } from "../report/shrink-log.js";
import { writeReport } from "../report/write-report.js";
import { err, type InputError, ok, type Result } from "../result.js";
import { loadSchedule } from "../schedule/load.js";
import { withModuleRelativeTo } from "../schedule/module-path.js";
import type { Schedule } from "../schedule/schedule.js";
import { findTarget } from "../targets/index.js";
import type { ServerPlacement } from "../targets/target.js";

export const SCHEDULE_FILE = "schedule.json";

/** Whether the target named renews its lease while held (Target.renews); false if unknown. */
export function targetRenews(name: string): boolean {
  const t = findTarget(name);
  return t.ok && t.value.renews === true;
}
export const HISTORY_FILE = "history.jsonl";
export const VERDICT_FILE = "verdict.json";

export interface RunToSave {
  schedule: Schedule;
  ops: readonly Op[];
  verdicts: readonly Verdict[];
  /** Shown in the HTML report's summary. */
  replayCommand?: string;
  /** What shrinking on real servers ran to get here: saved as shrink-log.txt. */
  shrinkLog?: ShrinkLog | undefined;
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

/**
 * `dir` if nothing is saved there yet (it does not exist or is empty), else the first of
 * `dir-2`, `dir-3`, … that is free. For the default folders of runs on real servers, which
 * differ from one run of a schedule to the next: running a saved counterexample again, or the
 * same seed with other faults, must not overwrite the run saved before.
 */
export async function unusedRunDir(dir: string): Promise<string> {
  for (let n = 1; ; n++) {
    const candidate = n === 1 ? dir : `${dir}-${n}`;
    const entries = await readdir(candidate).catch(() => null);
    if (entries === null || entries.length === 0) return candidate;
  }
}

/** The command that replays the run saved in `dir` (on the servers `where` says). */
export function replayCommand(dir: string, where: ServerPlacement = {}): string {
  return `lockcheck replay ${dir}/${SCHEDULE_FILE}${placementFlags(where)}`;
}

/**
 * What a command printed for the user adds so that it runs where the servers ran: containers
 * stay containers, on the images and Compose file given by flag (those from LOCKCHECK_*_IMAGE
 * are the environment's, as they were).
 */
export function placementFlags(where: ServerPlacement = {}): string {
  if (where.cluster !== "docker") return "";
  const { images, composeFile } = where.docker ?? {};
  return [
    " --cluster docker",
    images?.redis === undefined ? "" : ` --redis-image ${images.redis}`,
    images?.etcd === undefined ? "" : ` --etcd-image ${images.etcd}`,
    composeFile === undefined ? "" : ` --compose ${composeFile}`,
  ].join("");
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
  const { schedule, ops, verdicts, shrinkLog } = run;
  const saved = await saveRun(dir, { schedule, ops, verdicts, replayCommand: replay, shrinkLog });
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
    await writeFile(schedulePath, jsonText(withModuleRelativeTo(withModuleRef(run.schedule), dir)), "utf8");
    const verdict: VerdictFile = {
      valid: combineValidity(run.verdicts.map((v) => v.valid)),
      verdicts: run.verdicts,
    };
    await writeFile(verdictPath, jsonText(verdict), "utf8");
    if (run.shrinkLog !== undefined)
      await writeFile(join(dir, SHRINK_LOG_FILE), formatShrinkLog(run.shrinkLog), "utf8");
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
    renews: targetRenews(run.schedule.target),
  });
  if (!report.ok) return report;
  return ok([schedulePath, historyPath, verdictPath, report.value]);
}

// Reading a run folder.

const anomalySchema = z.looseObject({
  kind: z.string(),
  ops: z.array(z.number().int()),
  explanation: z.string(),
  time: z.number().optional(),
});
const verdictSchema = z.looseObject({
  checker: z.string(),
  valid: z.union([z.boolean(), z.literal("unknown")]),
  anomalies: z.array(anomalySchema),
  stats: z.record(z.string(), z.union([z.number(), z.string(), z.boolean(), z.null()])),
});
/** verdict.json: a list of verdicts, or an object with a `verdicts` list. */
const verdictFileSchema = z.union([
  z.array(verdictSchema),
  z.looseObject({ verdicts: z.array(verdictSchema) }),
]);

export interface LoadedReportInput {
  input: HtmlReportInput;
  /** The folder the history is in: where report.html goes by default. */
  dir: string;
  historyPath: string;
  /** Where the verdicts came from. */
  verdictSource: "verdict.json" | "checked";
  warnings: InputError[];
}

export async function isDirectory(path: string): Promise<boolean | undefined> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return undefined;
  }
}

async function exists(path: string): Promise<boolean> {
  return (await isDirectory(path)) !== undefined;
}

/** Reads verdict.json; undefined (with a warning) when it is absent or unusable. */
export async function readVerdictFile(path: string, warnings: InputError[]): Promise<Verdict[] | undefined> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch {
    return undefined;
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    warnings.push({
      file: path,
      message: `not valid JSON (${(e as Error).message}); checking the history instead`,
    });
    return undefined;
  }
  const parsed = verdictFileSchema.safeParse(data);
  if (!parsed.success) {
    warnings.push({ file: path, message: "holds no list of verdicts; checking the history instead" });
    return undefined;
  }
  return (Array.isArray(parsed.data) ? parsed.data : parsed.data.verdicts) as Verdict[];
}

export async function loadReportInput(
  path: string,
  opts: { recheck?: boolean } = {},
): Promise<Result<LoadedReportInput, InputError[]>> {
  const dirFlag = await isDirectory(path);
  if (dirFlag === undefined) return err([{ file: path, message: "no such file or folder" }]);
  const dir = dirFlag ? path : dirname(path);
  const historyPath = dirFlag ? join(path, HISTORY_FILE) : path;
  if (dirFlag && !(await exists(historyPath))) {
    return err([{ file: path, message: `not a run folder: it has no ${HISTORY_FILE}` }]);
  }
  const history = await readHistoryFile(historyPath);
  if (!history.ok) return err(history.error);
  const warnings = [...history.value.warnings];

  // A schedule and verdicts belong to the history only in its own folder, under the usual names.
  const inRunFolder = dirFlag || basename(historyPath) === HISTORY_FILE;
  let schedule: Schedule | undefined;
  const schedulePath = join(dir, SCHEDULE_FILE);
  if (inRunFolder && (await exists(schedulePath))) {
    const s = await loadSchedule(schedulePath);
    if (s.ok) schedule = s.value;
    else
      warnings.push({ ...s.error, message: `${s.error.message}; drawing the history without its schedule` });
  }
  let verdicts =
    inRunFolder && opts.recheck !== true
      ? await readVerdictFile(join(dir, VERDICT_FILE), warnings)
      : undefined;
  const verdictSource = verdicts ? "verdict.json" : "checked";
  verdicts ??= checkOps(history.value.ops);

  return ok({
    input: { ops: history.value.ops, verdicts, schedule },
    dir,
    historyPath,
    verdictSource,
    warnings,
  });
}
