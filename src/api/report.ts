/**
 * `renderRunReport(path, options)`: what `lockcheck report` does between its flags and its
 * output: read a run folder (or a history.jsonl on its own), re-check it if asked, and write
 * its self-contained HTML report (default: report.html next to the history).
 */
import { join } from "node:path";
import { combineValidity, type Validity } from "../checkers/verdict.js";
import { loadModule, MODULE_PREFIX } from "../custom/module-target.js";
import { REPORT_FILE, writeReportFile } from "../report/write-report.js";
import { err, type InputError, ok, type Result } from "../result.js";
import { loadReportInput, SCHEDULE_FILE, targetRenews } from "../runner/run-folder.js";
import { findModulePath } from "../schedule/module-path.js";
import type { Schedule } from "../schedule/schedule.js";

export interface RenderReportOptions {
  /** Where to write the report (default: report.html next to the history). */
  out?: string;
  /** Run the checkers again instead of reading verdict.json. */
  recheck?: boolean;
  title?: string;
  /** Called with each warning about the input, before the report is written. */
  onWarning?: (w: InputError) => void;
}

export interface RenderedReport {
  /** The file written. */
  file: string;
  valid: Validity;
  anomalies: number;
  ops: number;
  verdictSource: "verdict.json" | "checked";
  warnings: InputError[];
}

/**
 * Whether the run's lock renews its lease (then no hold is marked as outliving its ttl): a
 * library adapter's target is known once its module, which the schedule names, is loaded.
 */
async function lockRenews(
  schedule: Schedule | undefined,
  scheduleFile: string,
  warnings: InputError[],
): Promise<boolean> {
  if (schedule === undefined) return false;
  const path = await findModulePath(schedule, scheduleFile);
  if (path !== undefined) {
    const mod = await loadModule(`${MODULE_PREFIX}${path}`);
    if (!mod.ok) {
      warnings.push({
        ...mod.error,
        message: `${mod.error.message}; drawing the holds without knowing whether the lock renews its lease`,
      });
      return false;
    }
  }
  return targetRenews(schedule.target);
}

export async function renderRunReport(
  path: string,
  o: RenderReportOptions = {},
): Promise<Result<RenderedReport, InputError[]>> {
  const loaded = await loadReportInput(path, { recheck: o.recheck === true });
  if (!loaded.ok) return loaded;
  const { input, dir, verdictSource, warnings } = loaded.value;
  input.renews ??= await lockRenews(input.schedule, join(dir, SCHEDULE_FILE), warnings);
  for (const w of warnings) o.onWarning?.(w);
  if (o.title !== undefined) input.title = o.title;
  const written = await writeReportFile(o.out ?? join(dir, REPORT_FILE), input);
  if (!written.ok) return err([written.error]);
  return ok({
    file: written.value,
    valid: combineValidity(input.verdicts.map((v) => v.valid)),
    anomalies: input.verdicts.reduce((n, v) => n + v.anomalies.length, 0),
    ops: input.ops.length,
    verdictSource,
    warnings,
  });
}
