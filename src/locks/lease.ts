/**
 * `lease`: the single-node Redis lock recipe. `SET key owner NX PX ttl` acquires; a
 * compare-and-delete (the Lua script that deletes the key only if it still holds our owner
 * string) releases. No fencing token: once the lease expires while the holder is paused, the
 * holder cannot tell, and an unfenced resource accepts its late writes.
 *
 * Acquire retries while the key is held by someone else, until two TTLs have passed on the
 * client's own clock (a holder's lease is gone by then unless it is renewed).
 */
import type { RedisApi } from "../env/env.js";
import type { StepApi, StepEnv, Steps } from "../env/steps.js";
import type { LockAlgorithm, LockHandle, LockRequest, ReleaseOutcome } from "./lock.js";
import { acquireWaitMs, retryDelayMs } from "./retry.js";
import { steppedLock } from "./step-lock.js";

/**
 * `build(lock)`, the same string object for the same lock. A key built anew for every
 * acquire made a simulated Redis node hash it and compare it character by character with its
 * stored key at each request; one object hashes once and compares by identity.
 */
export function keyPerLock(build: (lock: string) => string): (lock: string) => string {
  const keys = new Map<string, string>();
  return (lock) => {
    let key = keys.get(lock);
    if (key === undefined) {
      // A run uses one lock name; a process that sees many keeps only the latest few.
      if (keys.size >= 64) keys.clear();
      key = build(lock);
      keys.set(lock, key);
    }
    return key;
  };
}

/** The Redis key a lock lives under. */
export const lockKey = keyPerLock((lock) => `lock:${lock}`);

export interface LeaseState {
  key: string;
  node: StepApi<RedisApi>;
}

/** Granted leases, with the token taken with them (null: none asked for). */
export type LeaseAcquire =
  | { outcome: "granted"; state: LeaseState; token: bigint | null }
  | { outcome: "denied"; reason: string }
  | { outcome: "unknown"; reason: string };

function leaseNode(env: StepEnv): StepApi<RedisApi> {
  const node = env.redis[0];
  if (node === undefined) throw new Error("lease lock: the environment has no Redis-like server");
  return node;
}

/**
 * Acquires the lease itself; shared by `lease` and `lease-token`. With `tokenKey`, each
 * attempt's SET NX also INCRs that counter in the same step (one script), and a granted lease
 * comes with the counter's new value.
 */
export function* acquireLease(
  env: StepEnv,
  req: LockRequest,
  tokenKey: string | null = null,
): Steps<LeaseAcquire> {
  const node = leaseNode(env);
  const key = lockKey(req.lock);
  const deadline = env.now() + acquireWaitMs(req.ttlMs);
  for (let attempt = 0; ; attempt++) {
    const pending =
      tokenKey === null
        ? node.setNxPx(key, req.owner, req.ttlMs)
        : node.setNxPxIncr(key, req.owner, req.ttlMs, tokenKey);
    yield* env.checkpoint("acquire-sent");
    const r = yield* pending;
    if (r.ok && r.value !== false && r.value !== null)
      return { outcome: "granted", state: { key, node }, token: r.value === true ? null : r.value };
    if (!r.ok) {
      if (r.error.kind === "unreachable") return { outcome: "denied", reason: "unreachable" };
      // The SET may have landed: the key may hold our owner until it expires. Try to undo it;
      // even if that works, the lease may have been ours for a moment, so stay honest.
      yield* node.delIfEquals(key, req.owner);
      return { outcome: "unknown", reason: "timeout" };
    }
    const wait = retryDelayMs(req.owner, attempt, req.ttlMs / 10, req.ttlMs / 10);
    if (env.now() + wait >= deadline) return { outcome: "denied", reason: "held" };
    yield* env.sleep(wait);
  }
}

export function* releaseLease(state: LeaseState, owner: string): Steps<ReleaseOutcome> {
  const r = yield* state.node.delIfEquals(state.key, owner);
  if (!r.ok) return { outcome: "unknown", reason: r.error.kind };
  return r.value ? { outcome: "released" } : { outcome: "not-held" };
}

export const lease: LockAlgorithm = steppedLock(
  { servers: "redis", fencing: false },
  {
    name: "lease",
    *acquire(env, req) {
      const r = yield* acquireLease(env, req);
      if (r.outcome !== "granted") return r;
      return { outcome: "granted", token: null, handle: { request: req, state: r.state } };
    },
    release: (_env, handle: LockHandle) => releaseLease(handle.state as LeaseState, handle.request.owner),
  },
);
