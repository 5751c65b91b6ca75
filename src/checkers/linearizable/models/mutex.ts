/**
 * Jepsen's `mutex` model, exactly as Knossos defines it (knossos.model/Mutex): one lock,
 * initially free; `acquire` is legal only when free and makes it held, `release` is legal only
 * when held and frees it. It does not know who holds the lock: any process may release it.
 */
import { describeLockOp, type LockInput, type LockOutput, partitionByLock } from "./lock-op.js";
import type { Model } from "./model.js";

/** `true` while the lock is held. */
export type MutexState = boolean;

export const mutexModel: Model<MutexState, LockInput, LockOutput> = {
  name: "mutex",
  init: () => false,
  step(locked, input) {
    if (input.f === "acquire") return locked ? undefined : true;
    return locked ? false : undefined;
  },
  key: (locked) => locked,
  partition: partitionByLock,
  describeOp: describeLockOp,
  describeState: (locked) => (locked ? "the lock held" : "the lock free"),
};
