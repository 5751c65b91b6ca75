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
 *    delay (as node-redlock does by default: up to 10 attempts, here also bounded by two TTLs).
 *
 * The validity check in step 3 is what protects a client that was paused while the replies
 * were in flight. `redlock-nocheck` builds the same algorithm with the check switched off,
 * as a popular npm implementation effectively does; see redlock-nocheck.ts.
 *
 * Neither variant hands out a fencing token: Redlock offers none, which is the point of
 * Kleppmann's critique; a clock jump on one node or a long pause after acquiring still
 * breaks mutual exclusion.
 */
import type { CallResult, LockEnv, RedisApi } from "../env/env.js";
import { lockKey } from "./lease.js";
import type { AcquireOutcome, LockAlgorithm, LockHandle, LockRequest, ReleaseOutcome } from "./lock.js";
import { acquireWaitMs, retryDelayMs } from "./retry.js";

export interface RedlockConfig {
  name: string;
  /** Whether to require positive remaining validity (step 3 above). */
  checkValidity: boolean;
  /** Most acquisition attempts before giving up (also bounded by two TTLs of waiting). */
  attempts: number;
}

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

async function unlockAll(nodes: readonly RedisApi[], key: string, owner: string, timeoutMs: number) {
  return Promise.all(nodes.map((n) => n.delIfEquals(key, owner, { timeoutMs })));
}

export function makeRedlock(config: RedlockConfig): LockAlgorithm {
  return {
    name: config.name,
    servers: "redis",
    fencing: false,
    async acquire(env: LockEnv, req: LockRequest): Promise<AcquireOutcome> {
      const nodes = env.redis;
      if (nodes.length === 0) throw new Error(`${config.name}: the environment has no Redis-like servers`);
      const key = lockKey(req.lock);
      const timeoutMs = perNodeTimeoutMs(req.ttlMs);
      let lastReason = "no-quorum";
      const deadline = env.now() + acquireWaitMs(req.ttlMs);
      for (let attempt = 0; attempt < config.attempts; attempt++) {
        const start = env.now();
        const pending: Promise<CallResult<boolean>>[] = nodes.map((n) =>
          n.setNxPx(key, req.owner, req.ttlMs, { timeoutMs }),
        );
        await env.checkpoint("acquire-sent");
        const replies = await Promise.all(pending);
        const votes = replies.filter((r) => r.ok && r.value).length;
        const elapsed = env.now() - start;
        const validity = req.ttlMs - elapsed - driftMs(req.ttlMs);
        const hasQuorum = votes >= quorum(nodes.length);
        if (hasQuorum && (!config.checkValidity || validity > 0)) {
          const state: RedlockState = { key };
          return { outcome: "granted", token: null, handle: { request: req, state } };
        }
        lastReason = hasQuorum ? "validity-expired" : "no-quorum";
        await unlockAll(nodes, key, req.owner, timeoutMs);
        const wait = retryDelayMs(req.owner, attempt, req.ttlMs / 10, req.ttlMs / 5);
        if (attempt + 1 >= config.attempts || env.now() + wait >= deadline) break;
        await env.sleep(wait);
      }
      return { outcome: "denied", reason: lastReason };
    },
    async release(env: LockEnv, handle: LockHandle): Promise<ReleaseOutcome> {
      const { key } = handle.state as RedlockState;
      const replies = await unlockAll(
        env.redis,
        key,
        handle.request.owner,
        perNodeTimeoutMs(handle.request.ttlMs),
      );
      if (replies.some((r) => r.ok && r.value)) return { outcome: "released" };
      if (replies.every((r) => r.ok)) return { outcome: "not-held" };
      return { outcome: "unknown", reason: "unlock-incomplete" };
    },
  };
}

export const redlock: LockAlgorithm = makeRedlock({ name: "redlock", checkValidity: true, attempts: 10 });
