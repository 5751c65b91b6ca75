/**
 * `consensus`: the etcd lock recipe (as in etcd's concurrency package, simplified).
 *
 * Grant a lease, have the client library keep it alive in the background every ttl/3, and
 * create the lock key attached to the lease in a transaction that succeeds only if the key is
 * absent. If someone else holds the key, watch for the deletion of the holder's key (etcd's
 * Mutex, too, waits on a watch rather than polling) and try again, for at most two TTLs; a
 * watch is given up after one TTL at most and the key checked again, so a watch stuck on a
 * member that is cut off or crashed costs no more than that. The fencing token is the lock
 * key's create revision: etcd's global revision only grows, so every later grant gets a
 * higher token (int64 in etcd: kept as a BigInt). Release deletes the key only if its create
 * revision is still ours, and revokes the lease.
 *
 * A holder paused for longer than the lease TTL loses the key (its keep-alive loop is frozen
 * too) yet still believes it holds the lock: an unfenced resource then accepts its late
 * writes; a resource fenced by the token rejects them.
 */
import type { EtcdApi, Renewal } from "../env/env.js";
import type { StepApi, StepEnv, Steps } from "../env/steps.js";
import type { AcquireOutcome, LockAlgorithm, LockHandle, LockRequest, ReleaseOutcome } from "./lock.js";
import { acquireWaitMs, retryDelayMs } from "./retry.js";
import { steppedLock } from "./step-lock.js";

interface ConsensusState {
  key: string;
  leaseId: string;
  createRevision: bigint;
  keepAlive: Renewal;
}

/** The last lock asked for and its key: every caller gets one string per lock, which map lookups hash once. */
let lastLock: string | null = null;
let lastKey = "";

export function etcdLockKey(lock: string): string {
  if (lock !== lastLock) {
    lastLock = lock;
    lastKey = `/lockcheck/locks/${lock}`;
  }
  return lastKey;
}

function etcdOf(env: StepEnv): StepApi<EtcdApi> {
  if (env.etcd === null) throw new Error("consensus lock: the environment has no etcd-like cluster");
  return env.etcd;
}

/** Gives up a lease we will not use; true if we certainly hold nothing afterwards. */
function* abandon(etcd: StepApi<EtcdApi>, leaseId: string, keepAlive: Renewal): Steps<boolean> {
  keepAlive.stop();
  const r = yield* etcd.leaseRevoke(leaseId);
  return r.ok;
}

export const consensus: LockAlgorithm = steppedLock(
  { servers: "etcd", fencing: true, renews: true }, // renews: the lease's keep-alive, while the lock is held
  {
    name: "consensus",
    *acquire(env: StepEnv, req: LockRequest): Steps<AcquireOutcome> {
      const etcd = etcdOf(env);
      const key = etcdLockKey(req.lock);
      const deadline = env.now() + acquireWaitMs(req.ttlMs);
      const granted = yield* etcd.leaseGrant(req.ttlMs);
      if (!granted.ok) return { outcome: "denied", reason: `lease-grant-${granted.error.kind}` };
      const { leaseId, ttlMs } = granted.value;
      const keepAlive = etcd.keepAlive(leaseId, Math.max(1, Math.floor(ttlMs / 3)));
      for (let attempt = 0; ; attempt++) {
        const pending = etcd.createIfAbsent(key, req.owner, leaseId);
        yield* env.checkpoint("acquire-sent");
        const r = yield* pending;
        if (!r.ok) {
          // The key may have been created under our lease; revoking the lease deletes it.
          const clean = yield* abandon(etcd, leaseId, keepAlive);
          return clean
            ? { outcome: "denied", reason: r.error.kind }
            : { outcome: "unknown", reason: r.error.kind };
        }
        if (r.value.created) {
          const state: ConsensusState = { key, leaseId, createRevision: r.value.createRevision, keepAlive };
          return { outcome: "granted", token: r.value.createRevision, handle: { request: req, state } };
        }
        const left = deadline - env.now();
        if (left <= 0) {
          yield* abandon(etcd, leaseId, keepAlive);
          return { outcome: "denied", reason: "held" };
        }
        const gone = yield* etcd.waitForDeletion(key, r.value.createRevision, Math.min(left, req.ttlMs));
        // No member would take the watch: fall back to polling.
        if (!gone.ok) {
          yield* env.sleep(Math.min(left, retryDelayMs(req.owner, attempt, req.ttlMs / 10, req.ttlMs / 10)));
        }
      }
    },
    *release(env: StepEnv, handle: LockHandle): Steps<ReleaseOutcome> {
      const etcd = etcdOf(env);
      const state = handle.state as ConsensusState;
      state.keepAlive.stop();
      const del = yield* etcd.deleteIfCreateRevision(state.key, state.createRevision);
      yield* etcd.leaseRevoke(state.leaseId);
      if (!del.ok) return { outcome: "unknown", reason: del.error.kind };
      return del.value ? { outcome: "released" } : { outcome: "not-held" };
    },
  },
);
