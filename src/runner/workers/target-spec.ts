/**
 * How a worker thread finds the coordinator's target: by its registered name, or by the
 * module it was loaded from. A Target object made on the spot (e.g. by the library from a
 * LockAlgorithm) has neither, so it cannot be searched by workers. (The worker side is
 * `loadTarget` in fuzz-worker.ts.)
 */
import { moduleSpecOf } from "../../custom/module-target.js";
import { findTarget } from "../../targets/index.js";
import type { Target } from "../../targets/target.js";

/** What a worker needs to rebuild `target` in another thread, or null if it cannot. */
export function targetSpec(target: Target): string | null {
  const moduleSpec = moduleSpecOf(target.name);
  if (moduleSpec !== undefined) return moduleSpec;
  const found = findTarget(target.name);
  return found.ok && found.value === target ? target.name : null;
}
