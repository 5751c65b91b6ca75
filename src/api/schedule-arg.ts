/** The `<schedule>` argument of replay and shrink: a schedule.json, or a run folder holding one. */
import { stat } from "node:fs/promises";
import { join } from "node:path";
import { loadScheduleWithModule } from "../custom/schedule-module.js";
import type { InputError, Result } from "../result.js";
import type { Schedule } from "../schedule/schedule.js";

/**
 * Loads the schedule; when it records the module its target comes from (`module.path`), that
 * module is loaded too, so its target is known by name wherever the command looks it up.
 */
export async function loadScheduleArg(path: string): Promise<Result<Schedule, InputError>> {
  const isDir = await stat(path).then(
    (s) => s.isDirectory(),
    () => false,
  );
  return loadScheduleWithModule(isDir ? join(path, "schedule.json") : path);
}
