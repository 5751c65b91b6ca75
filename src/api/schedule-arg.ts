/** The `<schedule>` argument of replay and shrink: a schedule.json, or a run folder holding one. */
import { stat } from "node:fs/promises";
import { join } from "node:path";
import { loadModule, MODULE_PREFIX } from "../custom/module-target.js";
import type { InputError, Result } from "../result.js";
import { loadSchedule } from "../schedule/load.js";
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
  const file = isDir ? join(path, "schedule.json") : path;
  const loaded = await loadSchedule(file);
  if (!loaded.ok || loaded.value.module === undefined) return loaded;
  const mod = await loadModule(`${MODULE_PREFIX}${loaded.value.module.path}`);
  if (!mod.ok)
    return {
      ok: false,
      error: { ...mod.error, file: mod.error.file ?? file, field: mod.error.field ?? "module.path" },
    };
  return loaded;
}
