/**
 * `lease-token`: the `lease` recipe plus a fencing token. After the SET NX succeeds, the
 * client INCRs a counter kept under a separate key on the same node and presents the new
 * value with every write. A fencing resource then rejects the late writes of a holder whose
 * lease expired while it was paused, because a newer holder has presented a higher token.
 *
 * (The counter lives on the lock node, which has no persistence: a crash of that node resets
 * it, and the token-order checker will rightly flag the repeated tokens.)
 */
import { acquireLease, keyPerLock, type LeaseState, lockKey, releaseLease } from "./lease.js";
import type { LockAlgorithm, LockHandle } from "./lock.js";
import { steppedLock } from "./step-lock.js";

/** The Redis key of a lock's fencing-token counter. */
export const tokenKey = keyPerLock((lock) => `${lockKey(lock)}:token`);

export const leaseToken: LockAlgorithm = steppedLock(
  { servers: "redis", fencing: true },
  {
    name: "lease-token",
    *acquire(env, req) {
      const r = yield* acquireLease(env, req);
      if (r.outcome !== "granted") return r;
      const token = yield* r.state.node.incr(tokenKey(req.lock));
      if (token.ok)
        return { outcome: "granted", token: token.value, handle: { request: req, state: r.state } };
      // We hold the lease but have no token to write with: give the lease back.
      yield* releaseLease(r.state, req.owner);
      return token.error.kind === "unreachable"
        ? { outcome: "denied", reason: "token-unreachable" }
        : { outcome: "unknown", reason: "token-timeout" };
    },
    release: (_env, handle: LockHandle) => releaseLease(handle.state as LeaseState, handle.request.owner),
  },
);
