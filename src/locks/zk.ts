/**
 * `zk`: the ZooKeeper lock recipe. Open a session (kept alive by a heartbeat loop every
 * timeout/3), create an ephemeral sequential node under the lock's prefix, and hold the lock
 * once our node has the lowest sequence number among the children; otherwise wait (poll)
 * until the nodes ahead of us are gone, bounded by two TTLs. The fencing token is the zxid of
 * the transaction that created our node: zxids only grow, and nodes are granted in sequence
 * order, so later grants carry higher tokens. When the session expires (a paused client
 * stops heartbeating), the ensemble deletes the node and the next waiter takes the lock.
 */
import type { LockEnv, ZkApi } from "../env/env.js";
import { type Renewal, startRenewal } from "./keepalive.js";
import type { AcquireOutcome, LockAlgorithm, LockHandle, LockRequest, ReleaseOutcome } from "./lock.js";
import { acquireWaitMs, retryDelayMs } from "./retry.js";

interface ZkState {
  sessionId: string;
  path: string;
  heartbeat: Renewal;
}

export function zkLockPrefix(lock: string): string {
  return `/lockcheck/locks/${lock}/lock`;
}

function zkOf(env: LockEnv): ZkApi {
  if (env.zk === null) throw new Error("zk lock: the environment has no ZooKeeper-like ensemble");
  return env.zk;
}

/** Closes the session (which deletes its ephemeral nodes); true if that certainly happened. */
async function abandon(zk: ZkApi, sessionId: string, heartbeat: Renewal): Promise<boolean> {
  heartbeat.stop();
  const r = await zk.closeSession(sessionId);
  return r.ok;
}

export const zk: LockAlgorithm = {
  name: "zk",
  servers: "zk",
  fencing: true,
  async acquire(env: LockEnv, req: LockRequest): Promise<AcquireOutcome> {
    const ensemble = zkOf(env);
    const prefix = zkLockPrefix(req.lock);
    const deadline = env.now() + acquireWaitMs(req.ttlMs);
    const session = await ensemble.createSession(req.ttlMs);
    if (!session.ok) return { outcome: "denied", reason: `session-${session.error.kind}` };
    const { sessionId } = session.value;
    const heartbeat = startRenewal(env, Math.max(1, Math.floor(req.ttlMs / 3)), async () => {
      const r = await ensemble.heartbeat(sessionId);
      return !r.ok || r.value;
    });

    const pending = ensemble.createEphemeralSequential(sessionId, prefix);
    await env.checkpoint("acquire-sent");
    const created = await pending;
    if (!created.ok) {
      const clean = await abandon(ensemble, sessionId, heartbeat);
      return clean
        ? { outcome: "denied", reason: created.error.kind }
        : { outcome: "unknown", reason: created.error.kind };
    }
    const mine = created.value;

    for (let attempt = 0; ; attempt++) {
      const listed = await ensemble.children(prefix);
      if (listed.ok) {
        const first = listed.value[0];
        if (first !== undefined && first.path === mine.path) {
          const state: ZkState = { sessionId, path: mine.path, heartbeat };
          return { outcome: "granted", token: mine.zxid, handle: { request: req, state } };
        }
        if (!listed.value.some((c) => c.path === mine.path)) {
          // Our node is gone: the session expired while we waited.
          await abandon(ensemble, sessionId, heartbeat);
          return { outcome: "denied", reason: "session-expired" };
        }
      }
      const wait = retryDelayMs(req.owner, attempt, req.ttlMs / 10, req.ttlMs / 10);
      if (env.now() + wait >= deadline) {
        const clean = await abandon(ensemble, sessionId, heartbeat);
        return clean ? { outcome: "denied", reason: "held" } : { outcome: "unknown", reason: "held" };
      }
      await env.sleep(wait);
    }
  },
  async release(env: LockEnv, handle: LockHandle): Promise<ReleaseOutcome> {
    const ensemble = zkOf(env);
    const state = handle.state as ZkState;
    state.heartbeat.stop();
    const del = await ensemble.delete(state.path);
    await ensemble.closeSession(state.sessionId);
    if (!del.ok) return { outcome: "unknown", reason: del.error.kind };
    return del.value ? { outcome: "released" } : { outcome: "not-held" };
  },
};
