/**
 * The `lease-token` recipe as it was before its SET and INCR ran as one script: the token is
 * taken in a second call after the SET NX succeeded, as npm's simple-redis-mutex 3.0.0 does.
 * A holder paused between the two calls for longer than its lease wakes with a token higher
 * than the next holder's (token-order: "token-inverted"). Kept for the tests that show it.
 */
import { acquireLease, type LeaseState, releaseLease } from "../../src/locks/lease.js";
import { tokenKey } from "../../src/locks/lease-token.js";
import type { LockAlgorithm, LockHandle } from "../../src/locks/lock.js";
import { steppedLock } from "../../src/locks/step-lock.js";
import { simulate } from "../../src/sim/simulate.js";
import type { Target } from "../../src/targets/target.js";
import { target } from "../fuzz/schedules.js";

export const leaseTokenSplit: LockAlgorithm = steppedLock(
  { servers: "redis", fencing: true },
  {
    name: "lease-token-split",
    *acquire(env, req) {
      const r = yield* acquireLease(env, req);
      if (r.outcome !== "granted") return r;
      const token = yield* r.state.node.incr(tokenKey(req.lock));
      if (token.ok)
        return { outcome: "granted", token: token.value, handle: { request: req, state: r.state } };
      yield* releaseLease(r.state, req.owner);
      return { outcome: "unknown", reason: "token-timeout" };
    },
    release: (_env, handle: LockHandle) => releaseLease(handle.state as LeaseState, handle.request.owner),
  },
);

/** `sim:lease-token` with this algorithm in its place. */
export function leaseTokenSplitTarget(): Target {
  return {
    ...target("sim:lease-token"),
    name: "sim:lease-token-split",
    algorithm: leaseTokenSplit,
    run: async (schedule) => {
      const r = await simulate(schedule, leaseTokenSplit);
      return { ops: r.ops, stats: { ...r.stats } };
    },
  };
}
