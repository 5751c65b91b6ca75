/**
 * `lease-token`: the `lease` recipe plus a fencing token. The SET NX and an INCR of a counter
 * kept under a separate key on the same node run as one script, and the holder presents the
 * counter's new value with every write. A fencing resource then rejects the late writes of a
 * holder whose lease expired while it was paused, because a newer holder has presented a
 * higher token. (Taken in a second call after the SET, the token would let a holder paused
 * between the two calls wake with a token higher than the next holder's: token-order flags
 * that, see test/locks/lease-token-split.ts.)
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
      const r = yield* acquireLease(env, req, tokenKey(req.lock));
      if (r.outcome !== "granted") return r;
      return { outcome: "granted", token: r.token, handle: { request: req, state: r.state } };
    },
    release: (_env, handle: LockHandle) => releaseLease(handle.state as LeaseState, handle.request.owner),
  },
);
