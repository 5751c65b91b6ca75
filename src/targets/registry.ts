/**
 * The target registry: name → Target. Worlds register their targets at import time
 * (src/targets/index.ts imports each world's list); lookups fail with a message that lists
 * every valid name.
 */
import { err, type InputError, ok, type Result } from "../result.js";
import type { Target } from "./target.js";

const targets = new Map<string, Target>();

/** Adds a target; registering a name twice is a programming error. */
export function registerTarget(t: Target): void {
  if (!/^[a-z]+:[a-z0-9-]+$/.test(t.name))
    throw new RangeError(`registerTarget: bad name "${t.name}" (expected world:lock)`);
  if (targets.has(t.name)) throw new RangeError(`registerTarget: "${t.name}" is already registered`);
  targets.set(t.name, t);
}

export function targetNames(): string[] {
  return [...targets.keys()];
}

export function listTargets(): Target[] {
  return [...targets.values()];
}

export function findTarget(name: string, field = "target"): Result<Target, InputError> {
  const t = targets.get(name);
  if (t !== undefined) return ok(t);
  return err({ field, message: `unknown target "${name}"; valid targets: ${targetNames().join(", ")}` });
}
