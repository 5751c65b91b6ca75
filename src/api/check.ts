/** `check(history)`: runs the checkers over a recorded history (ops, or a history.jsonl path). */
import { type CheckerName, checkOps } from "../checkers/index.js";
import { combineValidity, type Validity, type Verdict } from "../checkers/verdict.js";
import { readHistoryFile } from "../history/jsonl.js";
import type { Op } from "../history/op.js";
import { emptyHistoryError } from "../history/read.js";
import { isViolation } from "../runner/execute.js";
import { LockcheckInputError } from "./target-arg.js";

export interface CheckOptions {
  /** Which checkers (default: every streaming checker). */
  checkers?: readonly CheckerName[];
  /** Accept a history with no ops (its verdicts are then trivially valid); default false. */
  allowEmpty?: boolean;
}

export interface CheckReport {
  kind: "check";
  ops: number;
  verdicts: Verdict[];
  /** True if a safety checker says false. */
  violation: boolean;
  valid: Validity;
  /** Where the history came from, if a file. */
  file: string | null;
}

export async function check(history: readonly Op[] | string, o: CheckOptions = {}): Promise<CheckReport> {
  let ops: readonly Op[];
  if (typeof history === "string") {
    const r = await readHistoryFile(history, { allowEmpty: o.allowEmpty ?? false });
    if (!r.ok) throw new LockcheckInputError("check", r.error);
    ops = r.value.ops;
  } else ops = history;
  if (ops.length === 0 && o.allowEmpty !== true)
    throw new LockcheckInputError("check", [emptyHistoryError(undefined)]);
  const verdicts = checkOps(ops, o.checkers);
  return {
    kind: "check",
    ops: ops.length,
    verdicts,
    violation: isViolation(verdicts),
    valid: combineValidity(verdicts.map((v) => v.valid)),
    file: typeof history === "string" ? history : null,
  };
}
