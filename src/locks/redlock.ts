/**
 * `redlock`: the Redlock algorithm as the Redis documentation describes it, over N
 * independent Redis-like nodes (env.redis, normally five).
 *
 * 1. Note the start time on the client's own clock.
 * 2. Send `SET key owner NX PX ttl` to every node in parallel, each with a short timeout so a
 *    dead node does not eat the lease.
 * 3. The lock is acquired if a majority (N/2 + 1) of nodes said yes AND the remaining
 *    validity, `ttl − elapsed − drift` with `drift = 1% of ttl + 2 ms`, is still positive.
 * 4. Otherwise unlock every node (even those that seemed to fail) and retry after a jittered
 *    delay, as node-redlock does by default (see NODE_REDLOCK_RETRY).
 *
 * The validity check in step 3 is what protects a client that was paused while the replies
 * were in flight. `redlock-nocheck` builds the same algorithm with the check switched off,
 * as a popular npm implementation effectively does; see redlock-nocheck.ts.
 *
 * Neither variant hands out a fencing token: Redlock offers none, which is the point of
 * Kleppmann's critique; a clock jump on one node or a long pause after acquiring still
 * breaks mutual exclusion.
 */
import type { CallOptions, CallResult } from "../env/env.js";
import type { StepEnv, Steps } from "../env/steps.js";
import { lockKey } from "./lease.js";
import type { AcquireOutcome, LockAlgorithm, LockHandle, LockRequest, ReleaseOutcome } from "./lock.js";
import { acquireWaitMs, retryDelayMs } from "./retry.js";
import { steppedLock } from "./step-lock.js";

export interface RedlockConfig {
  name: string;
  /** Whether to require positive remaining validity (step 3 above). */
  checkValidity: boolean;
  retry: RedlockRetry;
}

/** When and how often a client tries again after a failed attempt. */
export interface RedlockRetry {
  /** Most acquisition attempts, the first included. */
  attempts: number;
  /** The pause after failed attempt number `attempt` (0-based). */
  delayMs(owner: string, attempt: number, ttlMs: number): number;
  /** No retry starts once this long has passed since the first attempt; null: no such bound. */
  waitMs(ttlMs: number): number | null;
}

/**
 * node-redlock's defaults (retryCount 10, retryDelay 200 ms ± retryJitter 100 ms), with the
 * delays scaled to the TTL (ttl/10 + up to ttl/5: 100–300 ms for a 1 s TTL), at most 10
 * tries and no retry after two TTLs.
 */
export const NODE_REDLOCK_RETRY: RedlockRetry = {
  attempts: 10,
  delayMs: (owner, attempt, ttlMs) => retryDelayMs(owner, attempt, ttlMs / 10, ttlMs / 5),
  waitMs: (ttlMs) => acquireWaitMs(ttlMs),
};

interface RedlockState {
  key: string;
}

/** Clock drift allowance of the Redis documentation: 1% of the TTL plus 2 ms. */
export function driftMs(ttlMs: number): number {
  return Math.floor(ttlMs * 0.01) + 2;
}

/** Per-node request timeout: short against the TTL (the docs suggest 5–50 ms for a 10 s TTL). */
export function perNodeTimeoutMs(ttlMs: number): number {
  return Math.max(5, Math.floor(ttlMs / 20));
}

function quorum(nodes: number): number {
  return Math.floor(nodes / 2) + 1;
}

/** How many replies say yes. */
function yesVotes(replies: readonly CallResult<boolean>[]): number {
  let votes = 0;
  for (let i = 0; i < replies.length; i++) {
    const r = replies[i]!;
    if (r.ok && r.value) votes++;
  }
  return votes;
}

export function makeRedlock(config: RedlockConfig): LockAlgorithm {
  return steppedLock(
    { servers: "redis", fencing: false },
    {
      name: config.name,
      *acquire(env: StepEnv, req: LockRequest): Steps<AcquireOutcome> {
        const nodes = env.redis;
        if (nodes.length === 0) throw new Error(`${config.name}: the environment has no Redis-like servers`);
        const key = lockKey(req.lock);
        const opts: CallOptions = { timeoutMs: perNodeTimeoutMs(req.ttlMs) };
        let lastReason = "no-quorum";
        const { retry } = config;
        const waitMs = retry.waitMs(req.ttlMs);
        const deadline = waitMs === null ? Number.POSITIVE_INFINITY : env.now() + waitMs;
        for (let attempt = 0; attempt < retry.attempts; attempt++) {
          const start = env.now();
          const pending = env.redisAll.setNxPx(key, req.owner, req.ttlMs, opts);
          yield* env.checkpoint("acquire-sent");
          const votes = yesVotes(yield* pending);
          const elapsed = env.now() - start;
          const validity = req.ttlMs - elapsed - driftMs(req.ttlMs);
          const hasQuorum = votes >= quorum(nodes.length);
          if (hasQuorum && (!config.checkValidity || validity > 0)) {
            const state: RedlockState = { key };
            return { outcome: "granted", token: null, handle: { request: req, state } };
          }
          lastReason = hasQuorum ? "validity-expired" : "no-quorum";
          yield* env.redisAll.delIfEquals(key, req.owner, opts);
          if (attempt + 1 >= retry.attempts) break;
          const wait = retry.delayMs(req.owner, attempt, req.ttlMs);
          if (env.now() + wait >= deadline) break;
          yield* env.sleep(wait);
        }
        return { outcome: "denied", reason: lastReason };
      },
      *release(env: StepEnv, handle: LockHandle): Steps<ReleaseOutcome> {
        const { key } = handle.state as RedlockState;
        const replies = yield* env.redisAll.delIfEquals(key, handle.request.owner, {
          timeoutMs: perNodeTimeoutMs(handle.request.ttlMs),
        });
        if (replies.some((r) => r.ok && r.value)) return { outcome: "released" };
        if (replies.every((r) => r.ok)) return { outcome: "not-held" };
        return { outcome: "unknown", reason: "unlock-incomplete" };
      },
    },
  );
}

export const redlock: LockAlgorithm = makeRedlock({
  name: "redlock",
  checkValidity: true,
  retry: NODE_REDLOCK_RETRY,
});
