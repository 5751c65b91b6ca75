/**
 * What the library accepts as a target: a name ("sim:redlock", "redis:lease"), a module
 * ("module:./my-lock.js"), a Target, or a lock object — a LockAlgorithm (run in the
 * simulator) or a PlainLock (run in real time, in-process).
 */

import {
  isLockAlgorithm,
  loadModuleTarget,
  MODULE_PREFIX,
  plainTargetFor,
  resolveRealTarget,
  simTargetFor,
} from "../custom/module-target.js";

export { moduleTargetName } from "../custom/preload.js";

import { isLibraryLock } from "../locks/library-lock.js";
import type { LockAlgorithm } from "../locks/lock.js";
import { isPlainLock, type PlainLock } from "../locks/plain-lock.js";
import { err, formatInputError, type InputError, ok, type Result } from "../result.js";
import { findTarget } from "../targets/index.js";
import type { Target } from "../targets/target.js";

export type TargetArg = string | Target | LockAlgorithm | PlainLock;

function isTarget(x: unknown): x is Target {
  return typeof x === "object" && x !== null && typeof (x as Target).run === "function" && "defaults" in x;
}

/**
 * The target `arg` names or is; `field` names it in errors. `real`: a module's real-server
 * target instead of its simulator one (`fuzz --real`).
 */
export async function targetFrom(
  arg: TargetArg,
  field = "target",
  real = false,
  realField = "real",
): Promise<Result<Target, InputError>> {
  if (real)
    return typeof arg === "string"
      ? resolveRealTarget(arg, undefined, realField)
      : err({ field: realField, message: 'expected target "module:<path>" or a real target name with it' });
  if (typeof arg === "string")
    return arg.startsWith(MODULE_PREFIX) ? loadModuleTarget(arg) : findTarget(arg, field);
  if (isTarget(arg)) return ok(arg);
  if (isLockAlgorithm(arg)) return ok(simTargetFor(arg));
  if (isLibraryLock(arg))
    return err({
      field,
      message: `library adapter "${arg.name}": its client processes import it from its file, so pass "module:<path to the adapter>" (docs/libraries.md)`,
    });
  if (isPlainLock(arg)) return ok(plainTargetFor(arg));
  return err({
    field,
    message: "expected a target name, a Target, a LockAlgorithm or a PlainLock",
  });
}

/** Library functions reject bad arguments at once, with a message that names the call. */
export class LockcheckInputError extends Error {
  readonly problems: InputError[];
  constructor(call: string, problems: InputError[]) {
    super(`${call}: ${problems.map(formatInputError).join("; ")}`);
    this.name = "LockcheckInputError";
    this.problems = problems;
  }
}
