/**
 * Which targets come from a user's module, by target name → the module's absolute path (and
 * the adapter options a run was given). Schedules of such targets record it (`schedule.module`)
 * so that a saved schedule finds its module again from any working folder: every printed
 * `lockcheck replay …` / `lockcheck run --schedule …` works as printed.
 * Filled when a module is loaded (module-target.ts); read where schedules are made and saved.
 */
import type { Schedule } from "../schedule/schedule.js";

export type ModuleRef = NonNullable<Schedule["module"]>;

const byTarget = new Map<string, string>();

export function registerModuleRef(targetName: string, path: string): void {
  byTarget.set(targetName, path);
}

/** The module path behind target `name`, or undefined for a built-in target. */
export function modulePathOf(targetName: string): string | undefined {
  return byTarget.get(targetName);
}

/**
 * `schedule` with `module` filled in when its target comes from a module and it does not
 * record one yet (or the one it records names another path). Built-in targets: unchanged,
 * the very same object, so their schedules stay byte-identical.
 */
export function withModuleRef(schedule: Schedule): Schedule {
  const path = byTarget.get(schedule.target);
  if (path === undefined || schedule.module?.path === path) return schedule;
  return { ...schedule, module: { ...schedule.module, path } };
}
