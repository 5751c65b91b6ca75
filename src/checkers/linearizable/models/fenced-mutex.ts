/**
 * A fenced mutex: an owner-aware mutex whose every grant carries a fencing token greater than
 * the token of every earlier grant (tokens are integers, compared as BigInt).
 *
 * A grant whose token is unknown — an `info` acquire, or an `ok` acquire of a lock that hands
 * out no token — still used up a token if it happened, so later grants must be above it. Since
 * tokens are integers, "some token ≥ floor" moves the floor up by exactly one: the most
 * permissive choice, which is what a checker must assume.
 */
import { describeLockOp, type LockInput, type LockOutput, partitionByLock } from "./lock-op.js";
import type { Model } from "./model.js";

export interface FencedMutexState {
  /** The holder's process id as a string, or `null` when free. */
  readonly holder: string | null;
  /** The least token the next grant may carry; `null` before any grant (no lower bound). */
  readonly floor: bigint | null;
}

export const fencedMutexModel: Model<FencedMutexState, LockInput, LockOutput> = {
  name: "fenced-mutex",
  init: () => ({ holder: null, floor: null }),
  step(state, input, output) {
    const me = String(input.process);
    if (input.f === "release") return state.holder === me ? { holder: null, floor: state.floor } : undefined;
    if (state.holder !== null) return undefined;
    const token = output?.token;
    if (token === undefined) return { holder: me, floor: state.floor === null ? null : state.floor + 1n };
    if (state.floor !== null && token < state.floor) return undefined;
    return { holder: me, floor: token + 1n };
  },
  key: (s) => `${s.holder ?? ""}|${s.floor ?? ""}`,
  partition: partitionByLock,
  describeOp: describeLockOp,
  describeState: (s) =>
    `${s.holder === null ? "the lock free" : `the lock held by process ${s.holder}`} (${
      s.floor === null ? "no token granted yet" : `next token must be ≥ ${s.floor}`
    })`,
};
