/**
 * The environment a simulated client runs against: its own clock, sleeps on its monotonic
 * clock, calls over the simulated network to the world's servers, and checkpoints where the
 * schedule's `pause-at` faults freeze it. Its waits are SimOps (step code, sim-op.ts);
 * `asyncClientEnv` gives the same as promises for a user's async algorithm.
 */
import {
  type CallError,
  type CallOptions,
  type CallResult,
  type EtcdApi,
  type LockEnv,
  NOT_PAUSED,
  type RedisApi,
  type RedisFanOut,
  type ResourceApi,
  type ResourceWrite,
  type ResourceWriteResult,
  type ZkApi,
} from "../env/env.js";
import { asyncEnvOf, type StepApi, type StepEnv, type Waitable } from "../env/steps.js";
import { etcdLockKey } from "../locks/consensus.js";
import type { Checkpoint } from "../schedule/schedule.js";
import { noteAction } from "./batch.js";
import { wallAt } from "./clock.js";
import { renewInBackground } from "./cluster-renewal.js";
import { type ClusterSession, clusterSession, submitToCluster, watchAtCluster } from "./consensus-client.js";
import { checkpointFaultsOf, faultsAtCheckpoint } from "./nemesis.js";
import { type SimNode, setTimerWith } from "./node.js";
import { mapPacked } from "./packed.js";
import { callAnswered, callAnsweredEach, channel } from "./rpc.js";
import { deletedSince, type EtcdCluster, type EtcdCmd, type EtcdRes } from "./servers/etcd.js";
import { delIfEquals, incr, type RedisNode, setNxPx } from "./servers/redis.js";
import { type ResourceNode, writeResource } from "./servers/resource.js";
import { nodeGone, type ZkCmd, type ZkEnsemble, type ZkRes } from "./servers/zk.js";
import { completeOp, promiseOf, SimOp, settledOp } from "./sim-op.js";
import type { SimWorld } from "./world.js";

export function createClientEnv(w: SimWorld, clientId: number, client: SimNode): StepEnv {
  const callTimeout = (opts?: CallOptions): number => opts?.timeoutMs ?? w.schedule.options.callTimeoutMs;
  const checkpoints = new Map<Checkpoint, number>();
  const checkpointFaults = checkpointFaultsOf(w, clientId);
  const faultedAtCheckpoints = checkpointFaults.length > 0;
  return {
    clientId,
    now: () => {
      noteAction(client);
      return wallAt(client.clock, w.core.now);
    },
    sleep: (ms) => {
      noteAction(client);
      const op = new SimOp<void>(client.core);
      setTimerWith(client, ms, wake, op);
      return op;
    },
    redis: mapPacked(w.redis, (r) => redisApi(w, client, r, callTimeout)),
    redisAll: redisFanOut(w, client, callTimeout),
    etcd: w.etcd === null ? null : etcdApi(w, client, w.etcd, callTimeout),
    zk: w.zk === null ? null : zkApi(w, client, w.zk, callTimeout),
    resource: resourceApi(w, client, callTimeout),
    checkpoint(point) {
      noteAction(client);
      if (!faultedAtCheckpoints) return NOT_PAUSING;
      const occurrence = checkpoints.get(point) ?? 0;
      checkpoints.set(point, occurrence + 1);
      return faultsAtCheckpoint(w, clientId, client, checkpointFaults, point, occurrence) ?? NOT_PAUSING;
    },
  };
}

/** What a checkpoint that does not pause returns: settled from the start. */
const NOT_PAUSING: SimOp<void> = settledOp<void>(undefined);

/** The client's environment as promises, for a user's async LockAlgorithm. */
export function asyncClientEnv(env: StepEnv): LockEnv {
  return asyncEnvOf(env, simPromiseOf);
}

function simPromiseOf<T>(w: Waitable<T>): Promise<T> {
  if (w === NOT_PAUSING) return NOT_PAUSED as Promise<T>;
  return promiseOf(w as SimOp<T>);
}

function wake(op: SimOp<void>, node: SimNode): void {
  node.core.settled = true;
  completeOp(op, undefined);
}

type TimeoutOf = (opts?: CallOptions) => number;

function redisApi(w: SimWorld, client: SimNode, r: RedisNode, timeout: TimeoutOf): StepApi<RedisApi> {
  const to = r.node;
  const ch = channel(w.net, client, to);
  return {
    node: to.name,
    setNxPx: (key, value, ttlMs, opts) =>
      callAnswered(ch, timeout(opts), answerSetNxPx, r, key, value, ttlMs),
    delIfEquals: (key, value, opts) =>
      callAnswered(ch, timeout(opts), answerDelIfEquals, r, key, value, undefined),
    incr: (key, opts) => callAnswered(ch, timeout(opts), answerIncr, r, key, undefined, undefined),
    setNxPxIncr: (key, value, ttlMs, counterKey, opts) =>
      callAnswered(ch, timeout(opts), answerSetNxPxIncr, r, key, value, { ttlMs, counterKey }),
  };
}

function redisFanOut(w: SimWorld, client: SimNode, timeout: TimeoutOf): StepApi<RedisFanOut> {
  const channels = mapPacked(w.redis, (r) => channel(w.net, client, r.node));
  const servers = w.redis;
  if (servers.length === 0) {
    const none = (): SimOp<CallResult<boolean>[]> => settledOp<CallResult<boolean>[]>([]);
    return { setNxPx: none, delIfEquals: none };
  }
  return {
    setNxPx: (key, value, ttlMs, opts) =>
      callAnsweredEach(channels, timeout(opts), answerSetNxPx, servers, key, value, ttlMs),
    delIfEquals: (key, value, opts) =>
      callAnsweredEach(channels, timeout(opts), answerDelIfEquals, servers, key, value, undefined),
  };
}

/** Answers are never mutated by their readers, so the two boolean ones are shared. */
const TRUE: CallResult<boolean> = Object.freeze({ ok: true, value: true });
const FALSE: CallResult<boolean> = Object.freeze({ ok: true, value: false });

function answerSetNxPx(r: RedisNode, key: string, value: string, ttlMs: number): CallResult<boolean> {
  return setNxPx(r, key, value, ttlMs) ? TRUE : FALSE;
}

function answerDelIfEquals(r: RedisNode, key: string, value: string): CallResult<boolean> {
  return delIfEquals(r, key, value) ? TRUE : FALSE;
}

function answerIncr(r: RedisNode, key: string): CallResult<bigint> {
  const v = incr(r, key);
  return v === null
    ? { ok: false, error: { kind: "unreachable", node: r.node.name, detail: "ERR value is not an integer" } }
    : { ok: true, value: v };
}

/** The script: SET NX PX, then INCR the counter if the key was set, in one step. */
function answerSetNxPxIncr(
  r: RedisNode,
  key: string,
  value: string,
  c: { ttlMs: number; counterKey: string },
): CallResult<bigint | null> {
  if (!setNxPx(r, key, value, c.ttlMs)) return { ok: true, value: null };
  return answerIncr(r, c.counterKey);
}

/**
 * Sends `cmd` to the cluster; `finish` turns the answer, narrowed to the command's own
 * result type, into the call's result.
 */
function submitter<Cmd extends { op: string }, Res extends { op: string }>(
  w: SimWorld,
  cluster: Parameters<typeof submitToCluster<Cmd, Res, unknown>>[1],
  timeout: TimeoutOf,
  session: ClusterSession,
) {
  const idleWaitMs = w.timings.heartbeatMs;
  return <C extends Cmd, T>(
    cmd: C,
    opts: CallOptions | undefined,
    finish: (res: Extract<Res, { op: C["op"] }>) => CallResult<T>,
  ): SimOp<CallResult<T>> =>
    // submitToCluster checks that the answer's op is the command's before calling `finish`.
    submitToCluster(
      w.net,
      cluster,
      session,
      cmd,
      timeout(opts),
      idleWaitMs,
      finish as (res: Res) => CallResult<T>,
    );
}

/** "Certainly did not happen", for requests the cluster refused (missing lease, expired session). */
function refused(node: string, detail: string): { ok: false; error: CallError } {
  return { ok: false, error: { kind: "unreachable", node, detail } };
}

function etcdApi(w: SimWorld, client: SimNode, etcd: EtcdCluster, timeout: TimeoutOf): StepApi<EtcdApi> {
  const session = clusterSession(w.net, client, etcd.cluster.members, "random");
  const submit = submitter<EtcdCmd, EtcdRes>(w, etcd.cluster, timeout, session);
  return {
    leaseGrant: (ttlMs, opts) =>
      submit({ op: "lease-grant", ttlMs }, opts, (v) => ({
        ok: true,
        value: { leaseId: v.leaseId, ttlMs: v.ttlMs },
      })),
    leaseKeepAlive: (leaseId, opts) =>
      submit({ op: "lease-keepalive", leaseId }, opts, (v) => ({ ok: true, value: { ttlMs: v.ttlMs } })),
    leaseRevoke: (leaseId, opts) =>
      submit({ op: "lease-revoke", leaseId }, opts, () => ({ ok: true, value: undefined })),
    keepAlive: (leaseId, intervalMs) =>
      renewInBackground(
        w.net,
        etcd.cluster,
        session,
        { op: "lease-keepalive", leaseId },
        intervalMs,
        leaseAlive,
      ),
    createIfAbsent: (key, value, leaseId, opts) =>
      submit({ op: "create-if-absent", key, value, leaseId }, opts, (v) =>
        v.leaseFound
          ? { ok: true, value: { created: v.created, createRevision: v.createRevision } }
          : refused("etcd", "lease not found"),
      ),
    get: (key, opts) => submit({ op: "get", key }, opts, (v) => ({ ok: true, value: v.info })),
    deleteIfCreateRevision: (key, createRevision, opts) =>
      submit({ op: "delete-if-create-revision", key, createRevision }, opts, (v) => ({
        ok: true,
        value: v.deleted,
      })),
    waitForDeletion: (key, createRevision, waitMs) =>
      watchAtCluster(w.net, etcd.cluster, session, deletedSince(key, createRevision), waitMs),
  };
}

const leaseAlive = (res: EtcdRes): boolean => res.op !== "lease-keepalive" || res.ttlMs > 0;
const sessionAlive = (res: ZkRes): boolean => res.op !== "heartbeat" || res.alive;

function zkApi(w: SimWorld, client: SimNode, zk: ZkEnsemble, timeout: TimeoutOf): StepApi<ZkApi> {
  const session = clusterSession(w.net, client, zk.cluster.members, "sticky");
  const submit = submitter<ZkCmd, ZkRes>(w, zk.cluster, timeout, session);
  return {
    createSession: (timeoutMs, opts) =>
      submit({ op: "create-session", timeoutMs }, opts, (v) => ({
        ok: true,
        value: { sessionId: v.sessionId },
      })),
    heartbeat: (sessionId, opts) =>
      submit({ op: "heartbeat", sessionId }, opts, (v) => ({ ok: true, value: v.alive })),
    closeSession: (sessionId, opts) =>
      submit({ op: "close-session", sessionId }, opts, () => ({ ok: true, value: undefined })),
    keepSessionAlive: (sessionId, intervalMs) =>
      renewInBackground(w.net, zk.cluster, session, { op: "heartbeat", sessionId }, intervalMs, sessionAlive),
    createEphemeralSequential: (sessionId, prefix, opts) =>
      submit({ op: "create-ephemeral-sequential", sessionId, prefix }, opts, (v) =>
        v.node === null ? refused("zk", "session expired") : { ok: true, value: v.node },
      ),
    children: (prefix, opts) =>
      submit({ op: "children", prefix }, opts, (v) => ({ ok: true, value: v.nodes })),
    delete: (path, opts) => submit({ op: "delete", path }, opts, (v) => ({ ok: true, value: v.deleted })),
    waitForDeletion: (path, waitMs) => watchAtCluster(w.net, zk.cluster, session, nodeGone(path), waitMs),
  };
}

function resourceApi(w: SimWorld, client: SimNode, timeout: TimeoutOf): StepApi<ResourceApi> {
  if (w.schedule.resource === "fenced-txn" && w.etcd !== null) {
    // The fence folded into the write: a txn on the etcd-like cluster (see servers/etcd.ts).
    const session = clusterSession(w.net, client, w.etcd.cluster.members, "random");
    const submit = submitter<EtcdCmd, EtcdRes>(w, w.etcd.cluster, timeout, session);
    return {
      write: (write, opts) =>
        submit(
          {
            op: "put-if-create-revision",
            guardKey: etcdLockKey(write.lock),
            createRevision: write.token ?? -1n,
            key: `/lockcheck/resource/${write.lock}`,
            value: write.value,
          },
          opts,
          (v) => ({ ok: true, value: v.written ? { accepted: true, seq: v.revision } : { accepted: false } }),
        ),
    };
  }
  const ch = channel(w.net, client, w.resourceNode);
  return {
    write: (write, opts) =>
      callAnswered(ch, timeout(opts), answerWrite, w.resource, write, undefined, undefined),
  };
}

const REJECTED: CallResult<ResourceWriteResult> = Object.freeze({
  ok: true,
  value: Object.freeze({ accepted: false }),
});

function answerWrite(resource: ResourceNode, write: ResourceWrite): CallResult<ResourceWriteResult> {
  const seq = writeResource(resource, write);
  return seq === 0 ? REJECTED : { ok: true, value: { accepted: true, seq: BigInt(seq) } };
}
