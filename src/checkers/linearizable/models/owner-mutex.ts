/**
 * An owner-aware mutex: like Jepsen's `mutex`, but the lock remembers which process holds it
 * and only that process may release it. Stricter than `mutex`: a history where client 2
 * "releases" client 1's lock is linearizable for `mutex` but not here.
 */
import { describeLockOp, type LockInput, type LockOutput, partitionByLock } from "./lock-op.js";
import type { Model } from "./model.js";

/** The holder's process id as a string, or `null` when free. */
export type OwnerMutexState = string | null;

export const ownerMutexModel: Model<OwnerMutexState, LockInput, LockOutput> = {
  name: "owner-mutex",
  init: () => null,
  step(holder, input) {
    const me = String(input.process);
    if (input.f === "acquire") return holder === null ? me : undefined;
    return holder === me ? null : undefined;
  },
  key: (holder) => holder,
  partition: partitionByLock,
  describeOp: describeLockOp,
  describeState: (holder) => (holder === null ? "the lock free" : `the lock held by process ${holder}`),
};
