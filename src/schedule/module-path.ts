/**
 * Where a saved schedule finds the module its target comes from (`schedule.module`). The run
 * folder records the module twice: `path`, absolute, where it was when the run was saved, and
 * `relativePath`, from the folder of that schedule.json. A run folder committed with the
 * project (a gate corpus entry) and checked out elsewhere — a CI runner, a colleague's clone —
 * finds the module by `relativePath`; a folder copied away from the project finds it by `path`.
 */
import { dirname, relative, resolve, sep } from "node:path";
import { pathExists } from "../util/path-exists.js";
import type { Schedule } from "./schedule.js";

/** `s` as saved in `folder`: its module's path from there, with `/` as separator (the same file on any OS). */
export function withModuleRelativeTo(s: Schedule, folder: string): Schedule {
  if (s.module === undefined) return s;
  const relativePath = relative(resolve(folder), s.module.path).split(sep).join("/");
  return { ...s, module: { ...s.module, relativePath } };
}

/**
 * The module of the schedule read from `scheduleFile`: the file at `relativePath` from that
 * folder if there is one, else `path`, as the schedule says. Undefined for a built-in target.
 */
export async function findModulePath(s: Schedule, scheduleFile: string): Promise<string | undefined> {
  if (s.module === undefined) return undefined;
  const { relativePath, path } = s.module;
  if (relativePath !== undefined) {
    const near = resolve(dirname(scheduleFile), relativePath);
    if (near === path || (await pathExists(near))) return near;
  }
  return path;
}

/** `s` with its module's path as found (`findModulePath`); `relativePath` is dropped, as it was only true of that folder. */
export async function withModuleFound(s: Schedule, scheduleFile: string): Promise<Schedule> {
  const path = await findModulePath(s, scheduleFile);
  if (s.module === undefined || path === undefined) return s;
  const { relativePath: _, ...module } = s.module;
  return { ...s, module: { ...module, path } };
}
