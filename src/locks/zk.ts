/**
 * `zk`: the ZooKeeper lock recipe. Open a session (which the client library pings every
 * timeout/3), create an ephemeral sequential node under the lock's prefix, and hold the lock
 * once our node has the lowest sequence number among the children; otherwise watch the node
 * just ahead of ours (exists with a watch, so only one waiter wakes per deletion) and list the
 * children again once it is gone, for at most two TTLs; a watch is given up after one TTL at
 * most, in case its member is cut off or crashed. The fencing token is the zxid of
 * the transaction that created our node: zxids only grow, and nodes are granted in sequence
 * order, so later grants carry higher tokens. When the session expires (a paused client
 * stops heartbeating), the ensemble deletes the node and the next waiter takes the lock.
 */
import type { Renewal, ZkApi } from "../env/env.js";
import type { StepApi, StepEnv, Steps } from "../env/steps.js";
import type { AcquireOutcome, LockAlgorithm, LockHandle, LockRequest, ReleaseOutcome } from "./lock.js";
import { acquireWaitMs, retryDelayMs } from "./retry.js";
import { steppedLock } from "./step-lock.js";

interface ZkState {
  sessionId: string;
  path: string;
  heartbeat: Renewal;
}

/** The last lock asked for and its prefix: every caller gets one string per lock, which map lookups hash once. */
let lastLock: string | null = null;
let lastPrefix = "";

export function zkLockPrefix(lock: string): string {
  if (lock !== lastLock) {
    lastLock = lock;
    lastPrefix = `/lockcheck/locks/${lock}/lock`;
  }
  return lastPrefix;
}

function zkOf(env: StepEnv): StepApi<ZkApi> {
  if (env.zk === null) throw new Error("zk lock: the environment has no ZooKeeper-like ensemble");
  return env.zk;
}

/** Closes the session (which deletes its ephemeral nodes); true if that certainly happened. */
function* abandon(zk: StepApi<ZkApi>, sessionId: string, heartbeat: Renewal): Steps<boolean> {
  heartbeat.stop();
  const r = yield* zk.closeSession(sessionId);
  return r.ok;
}

export const zk: LockAlgorithm = steppedLock(
  { servers: "zk", fencing: true, renews: true }, // renews: session heartbeats keep the ephemeral node while the lock is held
  {
    name: "zk",
    *acquire(env: StepEnv, req: LockRequest): Steps<AcquireOutcome> {
      const ensemble = zkOf(env);
      const prefix = zkLockPrefix(req.lock);
      const deadline = env.now() + acquireWaitMs(req.ttlMs);
      const session = yield* ensemble.createSession(req.ttlMs);
      if (!session.ok) return { outcome: "denied", reason: `session-${session.error.kind}` };
      const { sessionId } = session.value;
      const heartbeat = ensemble.keepSessionAlive(sessionId, Math.max(1, Math.floor(req.ttlMs / 3)));

      const pending = ensemble.createEphemeralSequential(sessionId, prefix);
      yield* env.checkpoint("acquire-sent");
      const created = yield* pending;
      if (!created.ok) {
        const clean = yield* abandon(ensemble, sessionId, heartbeat);
        return clean
          ? { outcome: "denied", reason: created.error.kind }
          : { outcome: "unknown", reason: created.error.kind };
      }
      const mine = created.value;

      for (let attempt = 0; ; attempt++) {
        const listed = yield* ensemble.children(prefix);
        let ahead: string | null = null;
        if (listed.ok) {
          const at = listed.value.findIndex((c) => c.path === mine.path);
          if (at === 0) {
            const state: ZkState = { sessionId, path: mine.path, heartbeat };
            return { outcome: "granted", token: mine.zxid, handle: { request: req, state } };
          }
          if (at < 0) {
            // Our node is gone (the session expired while we waited), or the listing came from
            // a member behind our own create: closing the session settles which.
            const clean = yield* abandon(ensemble, sessionId, heartbeat);
            return { outcome: clean ? "denied" : "unknown", reason: "session-expired" };
          }
          ahead = listed.value[at - 1]!.path;
        }
        const left = deadline - env.now();
        if (left <= 0) {
          const clean = yield* abandon(ensemble, sessionId, heartbeat);
          return clean ? { outcome: "denied", reason: "held" } : { outcome: "unknown", reason: "held" };
        }
        const gone =
          ahead === null ? null : yield* ensemble.waitForDeletion(ahead, Math.min(left, req.ttlMs));
        // The listing failed, or no member would take the watch: fall back to polling.
        if (gone === null || !gone.ok) {
          yield* env.sleep(Math.min(left, retryDelayMs(req.owner, attempt, req.ttlMs / 10, req.ttlMs / 10)));
        }
      }
    },
    *release(env: StepEnv, handle: LockHandle): Steps<ReleaseOutcome> {
      const ensemble = zkOf(env);
      const state = handle.state as ZkState;
      state.heartbeat.stop();
      const del = yield* ensemble.delete(state.path);
      yield* ensemble.closeSession(state.sessionId);
      if (!del.ok) return { outcome: "unknown", reason: del.error.kind };
      return del.value ? { outcome: "released" } : { outcome: "not-held" };
    },
  },
);
