/**
 * Operations on a lock as the lock models (mutex, owner-mutex, fenced-mutex) see them.
 * Only calls that may have taken effect reach a model: a `fail` completion means the call
 * certainly did not happen (Jepsen's semantics), so converters drop failed calls.
 */
import { type LinOp, type Partition, partitionBy } from "./model.js";

export interface LockInput {
  f: "acquire" | "release";
  /** Who called: the owner-aware models let only the holder release. */
  process: number | string;
  /** Which lock; histories are checked one lock at a time. */
  lock: string;
}

/** What an acquire learned: the fencing token, when the lock service hands one out. */
export interface LockOutput {
  token?: bigint;
}

export function partitionByLock(
  ops: readonly LinOp<LockInput, LockOutput>[],
): Partition<LockInput, LockOutput>[] {
  return partitionBy(ops, "lock", (input) => input.lock);
}

export function describeLockOp(input: LockInput, output: LockOutput | undefined): string {
  if (output === undefined) return `${input.f} → unknown (info)`;
  const token = output.token === undefined ? "" : ` token ${output.token}`;
  return `${input.f} → ok${token}`;
}
