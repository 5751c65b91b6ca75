/**
 * A saved schedule whose target comes from a user's module: schedule.json records the module
 * (`module.path`, absolute, and `module.relativePath` from its folder: schedule/module-path.ts),
 * and loading the schedule loads and registers that module too, so its target is known by name
 * wherever the schedule is run (replay, shrink, the gate's corpus).
 */
import type { InputError, Result } from "../result.js";
import { loadSchedule } from "../schedule/load.js";
import { withModuleFound } from "../schedule/module-path.js";
import type { Schedule } from "../schedule/schedule.js";
import { loadModule, MODULE_PREFIX } from "./module-target.js";

export async function loadScheduleWithModule(file: string): Promise<Result<Schedule, InputError>> {
  const loaded = await loadSchedule(file);
  if (!loaded.ok || loaded.value.module === undefined) return loaded;
  const schedule = await withModuleFound(loaded.value, file);
  const path = schedule.module!.path;
  const mod = await loadModule(`${MODULE_PREFIX}${path}`);
  if (!mod.ok) {
    const { relativePath } = loaded.value.module;
    const tried =
      relativePath === undefined ? "" : ` (nor at module.relativePath ${relativePath} from ${file})`;
    return {
      ok: false,
      error: {
        ...mod.error,
        message: `${mod.error.message}${tried}`,
        file: mod.error.file ?? file,
        field: mod.error.field ?? "module.path",
      },
    };
  }
  return { ok: true, value: schedule };
}
