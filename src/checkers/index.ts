/**
 * The registry of streaming checkers: build them by name, or run them in one pass over a
 * sequence of ops or a history file. (The linearizability checker is not streaming and is not registered here.)
 */
import { emptyOpFacts, factsOf, type OpFacts } from "../history/facts.js";
import type { Op } from "../history/op.js";
import { readHistory } from "../history/read.js";
import { err, type InputError, ok, type Result } from "../result.js";
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

/** One function that steps all `checkers` with an op's facts. */
export function stepAll(checkers: readonly Checker[]): (facts: OpFacts) => void {
  return (facts) => {
    for (let i = 0; i < checkers.length; i++) checkers[i]!.stepFacts(facts);
  };
}

/** Runs the named checkers (default: all) over `ops`, in index order, in one pass. */
export function checkOps(ops: Iterable<Op>, names?: readonly CheckerName[]): Verdict[] {
  const checkers = createCheckers(names);
  const step = stepAll(checkers);
  const facts = emptyOpFacts();
  for (const op of ops) step(factsOf(op, facts));
  return checkers.map((c) => c.finish());
}

/** What checking a history file found: verdicts, or why the file cannot be checked. */
export type FileCheck = Result<{ verdicts: Verdict[]; ops: number; warnings: InputError[] }, InputError[]>;

/**
 * Runs the named checkers (default: all) over a JSONL history file in one streaming pass:
 * each line is parsed, validated (src/history/validate.ts) and checked as it is read, so
 * memory does not grow with the file. Any validation error means no verdicts. A history with
 * no ops is an error unless `allowEmpty`.
 */
export async function checkHistoryFile(
  path: string,
  names?: readonly CheckerName[],
  opts: { allowEmpty?: boolean } = {},
): Promise<FileCheck> {
  const checkers = createCheckers(names);
  const stream = readHistory(path, { allowEmpty: opts.allowEmpty ?? false });
  const ops = await stream.visit(stepAll(checkers));
  if (stream.errors.length > 0) return err(stream.errors);
  return ok({ verdicts: checkers.map((c) => c.finish()), ops, warnings: stream.warnings });
}
