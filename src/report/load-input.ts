/**
 * What `lockcheck report` reads: a run folder (history.jsonl, and schedule.json and
 * verdict.json when present) or a history.jsonl on its own. Verdicts come from verdict.json
 * when it holds them; otherwise (or with `recheck`) the history is checked afresh.
 */
import { readFile, stat } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { z } from "zod";
import { checkOps } from "../checkers/index.js";
import type { Verdict } from "../checkers/verdict.js";
import { readHistoryFile } from "../history/jsonl.js";
import { err, type InputError, ok, type Result } from "../result.js";
import { loadSchedule } from "../schedule/load.js";
import type { Schedule } from "../schedule/schedule.js";
import type { HtmlReportInput } from "./html.js";

export const HISTORY_FILE = "history.jsonl";
export const SCHEDULE_FILE = "schedule.json";
export const VERDICT_FILE = "verdict.json";

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

async function isDirectory(path: string): Promise<boolean | undefined> {
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
