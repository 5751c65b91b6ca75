/**
 * The registry of streaming checkers: build them by name, or run them over a sequence of ops
 * in one pass. (The linearizability checker is not streaming and is not registered here.)
 */
import type { Op } from "../src/history/op.js";
import type { Checker } from "./checker.js";
import { createLivenessChecker } from "./liveness.js";
import { createMutualExclusionChecker } from "./mutual-exclusion.js";
import { createStaleWriteChecker } from "./stale-write.js";
import { createTokenOrderChecker } from "./token-order.js";
import type { Verdict } from "./verdict.js";

export type { Checker } from "./checker.js";

const FACTORIES = {
  "stale-write": createStaleWriteChecker,
  "mutual-exclusion": createMutualExclusionChecker,
  "token-order": createTokenOrderChecker,
  liveness: createLivenessChecker,
} as const satisfies Record<string, () => Checker>;

export type CheckerName = keyof typeof FACTORIES;

/** Every streaming checker, in the order reports list them. */
export const CHECKER_NAMES = Object.keys(FACTORIES) as CheckerName[];

/** The checkers whose `false` means the lock is unsafe (liveness is information only). */
export const SAFETY_CHECKERS = [
  "stale-write",
  "mutual-exclusion",
  "token-order",
] as const satisfies readonly CheckerName[];

export function isCheckerName(name: string): name is CheckerName {
  return Object.hasOwn(FACTORIES, name);
}

/** Fresh checkers (each is single-use); all of them when `names` is omitted. */
export function createCheckers(names: readonly CheckerName[] = CHECKER_NAMES): Checker[] {
  return names.map((n) => FACTORIES[n]());
}

/** Runs the named checkers (default: all) over `ops`, in index order, in one pass. */
export function checkOps(ops: Iterable<Op>, names?: readonly CheckerName[]): Verdict[] {
  const checkers = createCheckers(names);
  for (const op of ops) for (const c of checkers) c.step(op);
  return checkers.map((c) => c.finish());
}
