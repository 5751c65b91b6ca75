/** The `<schedule>` argument of replay and shrink: a schedule.json, or a run folder holding one. */
import { stat } from "node:fs/promises";
import { join } from "node:path";
import type { InputError, Result } from "../../result.js";
import { loadSchedule } from "../../schedule/load.js";
import type { Schedule } from "../../schedule/schedule.js";

export async function loadScheduleArg(path: string): Promise<Result<Schedule, InputError>> {
  const isDir = await stat(path).then(
    (s) => s.isDirectory(),
    () => false,
  );
  return loadSchedule(isDir ? join(path, "schedule.json") : path);
}
