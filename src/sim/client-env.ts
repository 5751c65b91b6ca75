/**
 * The LockEnv a simulated client runs against: its own clock, sleeps on its monotonic clock,
 * calls over the simulated network to the world's servers, and checkpoints where the
 * schedule's `pause-at` faults freeze it.
 */
import type {
  CallError,
  CallOptions,
  CallResult,
  EtcdApi,
  LockEnv,
  RedisApi,
  ResourceApi,
  ZkApi,
} from "../env/env.js";
import { etcdLockKey } from "../locks/consensus.js";
import type { Checkpoint } from "../schedule/schedule.js";
import { wallAt } from "./clock.js";
import { clusterSession, submitToCluster } from "./consensus-client.js";
import { pauseAtCheckpoint } from "./nemesis.js";
import { type SimNode, setTimerWith } from "./node.js";
import { call, channel } from "./rpc.js";
import type { EtcdCluster, EtcdCmd, EtcdRes } from "./servers/etcd.js";
import { delIfEquals, incr, type RedisNode, setNxPx } from "./servers/redis.js";
import { writeResource } from "./servers/resource.js";
import type { ZkCmd, ZkEnsemble, ZkRes } from "./servers/zk.js";
import type { SimWorld } from "./world.js";

export function createClientEnv(w: SimWorld, clientId: number, client: SimNode): LockEnv {
  const callTimeout = (opts?: CallOptions): number => opts?.timeoutMs ?? w.schedule.options.callTimeoutMs;
  const checkpoints = new Map<Checkpoint, number>();
  const pausedAtCheckpoints = w.schedule.faults.some((f) => f.kind === "pause-at" && f.client === clientId);
  return {
    clientId,
    now: () => wallAt(client.clock, w.core.now),
    sleep: (ms) =>
      new Promise<void>((resolve) => {
        setTimerWith(client, ms, wake, resolve);
      }),
    redis: w.redis.map((r) => redisApi(w, client, r, callTimeout)),
    etcd: w.etcd === null ? null : etcdApi(w, client, w.etcd, callTimeout),
    zk: w.zk === null ? null : zkApi(w, client, w.zk, callTimeout),
    resource: resourceApi(w, client, callTimeout),
    checkpoint(point) {
      if (!pausedAtCheckpoints) return noPause;
      const occurrence = checkpoints.get(point) ?? 0;
      checkpoints.set(point, occurrence + 1);
      return pauseAtCheckpoint(w, clientId, client, point, occurrence);
    },
  };
}

const noPause: Promise<void> = Promise.resolve();

function wake(resolve: () => void, node: SimNode): void {
  node.core.settled = true;
  resolve();
}

type TimeoutOf = (opts?: CallOptions) => number;

function redisApi(w: SimWorld, client: SimNode, r: RedisNode, timeout: TimeoutOf): RedisApi {
  const to = r.node;
  const ch = channel(w.net, client, to);
  return {
    node: to.name,
    setNxPx: (key, value, ttlMs, opts) =>
      call(ch, timeout(opts), (respond) => respond({ ok: true, value: setNxPx(r, key, value, ttlMs) })),
    delIfEquals: (key, value, opts) =>
      call(ch, timeout(opts), (respond) => respond({ ok: true, value: delIfEquals(r, key, value) })),
    incr: (key, opts) =>
      call(ch, timeout(opts), (respond) => {
        const v = incr(r, key);
        respond(
          v === null
            ? {
                ok: false,
                error: { kind: "unreachable", node: to.name, detail: "ERR value is not an integer" },
              }
            : { ok: true, value: v },
        );
      }),
  };
}

/** Sends `cmd` to the cluster and narrows the answer to the command's own result type. */
function submitter<Cmd extends { op: string }, Res extends { op: string }>(
  w: SimWorld,
  client: SimNode,
  cluster: Parameters<typeof submitToCluster<Cmd, Res>>[1],
  timeout: TimeoutOf,
) {
  const session = clusterSession(w.net, client, cluster.members);
  const idleWaitMs = w.timings.heartbeatMs;
  return async <C extends Cmd>(
    cmd: C,
    opts?: CallOptions,
  ): Promise<CallResult<Extract<Res, { op: C["op"] }>>> => {
    const r = await submitToCluster<Cmd, Res>(w.net, cluster, session, cmd, timeout(opts), idleWaitMs);
    if (!r.ok) return r;
    if (r.value.op !== cmd.op) throw new Error(`sim: ${cmd.op} answered with ${r.value.op}`);
    return { ok: true, value: r.value as Extract<Res, { op: C["op"] }> };
  };
}

/** "Certainly did not happen", for requests the cluster refused (missing lease, expired session). */
function refused(node: string, detail: string): { ok: false; error: CallError } {
  return { ok: false, error: { kind: "unreachable", node, detail } };
}

function etcdApi(w: SimWorld, client: SimNode, etcd: EtcdCluster, timeout: TimeoutOf): EtcdApi {
  const submit = submitter<EtcdCmd, EtcdRes>(w, client, etcd.cluster, timeout);
  const map = <T, U>(r: CallResult<T>, f: (v: T) => CallResult<U>): CallResult<U> => (r.ok ? f(r.value) : r);
  return {
    leaseGrant: async (ttlMs, opts) =>
      map(await submit({ op: "lease-grant", ttlMs }, opts), (v) => ({
        ok: true,
        value: { leaseId: v.leaseId, ttlMs: v.ttlMs },
      })),
    leaseKeepAlive: async (leaseId, opts) =>
      map(await submit({ op: "lease-keepalive", leaseId }, opts), (v) => ({
        ok: true,
        value: { ttlMs: v.ttlMs },
      })),
    leaseRevoke: async (leaseId, opts) =>
      map(await submit({ op: "lease-revoke", leaseId }, opts), () => ({ ok: true, value: undefined })),
    createIfAbsent: async (key, value, leaseId, opts) =>
      map(await submit({ op: "create-if-absent", key, value, leaseId }, opts), (v) =>
        v.leaseFound
          ? { ok: true, value: { created: v.created, createRevision: v.createRevision } }
          : refused("etcd", "lease not found"),
      ),
    get: async (key, opts) =>
      map(await submit({ op: "get", key }, opts), (v) => ({ ok: true, value: v.info })),
    deleteIfCreateRevision: async (key, createRevision, opts) =>
      map(await submit({ op: "delete-if-create-revision", key, createRevision }, opts), (v) => ({
        ok: true,
        value: v.deleted,
      })),
  };
}

function zkApi(w: SimWorld, client: SimNode, zk: ZkEnsemble, timeout: TimeoutOf): ZkApi {
  const submit = submitter<ZkCmd, ZkRes>(w, client, zk.cluster, timeout);
  const map = <T, U>(r: CallResult<T>, f: (v: T) => CallResult<U>): CallResult<U> => (r.ok ? f(r.value) : r);
  return {
    createSession: async (timeoutMs, opts) =>
      map(await submit({ op: "create-session", timeoutMs }, opts), (v) => ({
        ok: true,
        value: { sessionId: v.sessionId },
      })),
    heartbeat: async (sessionId, opts) =>
      map(await submit({ op: "heartbeat", sessionId }, opts), (v) => ({ ok: true, value: v.alive })),
    closeSession: async (sessionId, opts) =>
      map(await submit({ op: "close-session", sessionId }, opts), () => ({ ok: true, value: undefined })),
    createEphemeralSequential: async (sessionId, prefix, opts) =>
      map(await submit({ op: "create-ephemeral-sequential", sessionId, prefix }, opts), (v) =>
        v.node === null ? refused("zk", "session expired") : { ok: true, value: v.node },
      ),
    children: async (prefix, opts) =>
      map(await submit({ op: "children", prefix }, opts), (v) => ({ ok: true, value: v.nodes })),
    delete: async (path, opts) =>
      map(await submit({ op: "delete", path }, opts), (v) => ({ ok: true, value: v.deleted })),
  };
}

function resourceApi(w: SimWorld, client: SimNode, timeout: TimeoutOf): ResourceApi {
  if (w.schedule.resource === "fenced-txn" && w.etcd !== null) {
    // The fence folded into the write: a txn on the etcd-like cluster (see servers/etcd.ts).
    const submit = submitter<EtcdCmd, EtcdRes>(w, client, w.etcd.cluster, timeout);
    return {
      write: async (write, opts) => {
        const r = await submit(
          {
            op: "put-if-create-revision",
            guardKey: etcdLockKey(write.lock),
            createRevision: write.token ?? -1n,
            key: `/lockcheck/resource/${write.lock}`,
            value: write.value,
          },
          opts,
        );
        return r.ok ? { ok: true, value: { accepted: r.value.written } } : r;
      },
    };
  }
  const ch = channel(w.net, client, w.resourceNode);
  return {
    write: (write, opts): Promise<CallResult<{ accepted: boolean }>> =>
      call(ch, timeout(opts), (respond) =>
        respond({ ok: true, value: { accepted: writeResource(w.resource, write) } }),
      ),
  };
}
