/**
 * `EtcdApi` over a real etcd cluster, through the etcd3 client's raw gRPC clients (KV and
 * Lease), one attempt per call: etcd3's default retry and circuit-breaker policies are
 * replaced by a pass-through, because a silently retried transaction would make the history
 * lie about when (and how often) a request was sent.
 *
 * Revisions and lease ids are int64 in etcd; the client library hands them over as decimal
 * strings, and they stay exact here as BigInts (tokens) or strings (lease ids).
 *
 * Also `etcdTxnResourceApi`: the `fenced-txn` resource, where the fence is folded into the
 * write — a transaction that writes only while the lock key's create revision still equals
 * the writer's token.
 */
import {
  CompareResult,
  CompareTarget,
  Etcd3,
  FilterType,
  type ICompare,
  type IOptions,
  type IRequestOp,
  type ITxnResponse,
  type IWatchResponse,
} from "etcd3";
import type {
  CallError,
  CallOptions,
  CallResult,
  EtcdApi,
  EtcdKeyInfo,
  ResourceApi,
  ResourceWrite,
  ResourceWriteResult,
} from "../../env/env.js";
import { etcdLockKey } from "../../locks/consensus.js";
import { startRenewal } from "../../locks/keepalive.js";
import { LOOPBACK } from "../cluster/net.js";
import { callWithDeadline, errorText } from "./call.js";
import { RESOURCE_NODE } from "./resource.js";

/** The node name etcd calls report: the cluster as a whole (any member may serve a call). */
export const ETCD_NODE = "etcd";

type FaultPolicy = NonNullable<NonNullable<IOptions["faultHandling"]>["global"]>;

/**
 * A cockatiel-compatible policy that runs the call once and lets any error through. It must be
 * async: etcd3 reports failures by executing a function that throws, and expects a rejection.
 */
const passThrough = {
  execute: async <T>(fn: (ctx: { signal: AbortSignal; attempt: number }) => T | Promise<T>) =>
    fn({ signal: new AbortController().signal, attempt: 0 }),
} as unknown as FaultPolicy;

export function connectEtcd(ports: readonly number[], dialTimeoutMs: number): Etcd3 {
  return new Etcd3({
    hosts: ports.map((p) => `http://${LOOPBACK}:${p}`),
    dialTimeout: dialTimeoutMs,
    faultHandling: { global: passThrough, host: () => passThrough },
  });
}

const key = (k: string): Buffer => Buffer.from(k);

/** The part of etcd3's connection pool `warmEtcd` reaches: one gRPC client per service per member. */
interface PoolHosts {
  pool?: {
    hosts?: readonly {
      getServiceClient(service: string): Record<string, (req: unknown, opts: object, cb: () => void) => void>;
    }[];
  };
}

/** Services and cheap read-only calls that open them: KV (range) and Lease (list leases). */
const WARM_CALLS = [
  ["KV", "range", { key: key("lockcheck-warm-up") }],
  ["Lease", "leaseLeases", {}],
] as const;

/**
 * Makes one cheap call to every member on each service the lock uses, before the run
 * starts. etcd3 connects a member's gRPC channel on its first call there, and a fresh
 * channel takes milliseconds (connecting, picking) before a request leaves the process: a
 * client paused at `acquire-sent` right after its first transaction to a member had not sent
 * it yet, while the simulator's (and a long-running service's) requests are on the wire at
 * once. Warm, a request is written within one turn of the event loop. Best effort: a member
 * that does not answer within `timeoutMs` is left as it is. (It reaches into etcd3's pool,
 * which has no public way to address one member; test/real/etcd-pauses.test.ts
 * fails if that changes.)
 */
export async function warmEtcd(client: Etcd3, timeoutMs: number): Promise<void> {
  const hosts = (client as unknown as PoolHosts).pool?.hosts ?? [];
  const deadline = Date.now() + timeoutMs;
  await Promise.all(
    hosts.flatMap((host) =>
      WARM_CALLS.map(
        ([service, method, request]) =>
          new Promise<void>((resolve) => {
            try {
              host.getServiceClient(service)[method]!(request, { deadline }, () => resolve());
            } catch {
              resolve();
            }
          }),
      ),
    ),
  );
}

/**
 * Errors etcd itself answered with (the request was rejected, so it did not take effect) are
 * `unreachable`; so are failures to connect at all. Anything else — deadline, connection
 * reset mid-call, "request timed out", "leader changed" — may have taken effect: `timeout`.
 */
export function classifyEtcdError(node: string, e: unknown): CallError {
  const detail = errorText(e);
  const rejected = [
    "requested lease not found",
    "lease not found",
    "No connection established",
    "ECONNREFUSED",
    "Failed to connect",
  ];
  if (rejected.some((r) => detail.includes(r))) return { kind: "unreachable", node, detail };
  return { kind: "timeout", node, detail };
}

/**
 * How much later than lockcheck's own deadline (callWithDeadline) gRPC's gives up. Ours decides
 * what the call returns, after one more read of the sockets (call.ts): after a pause, Node runs
 * timers that came due before it reads replies that came, so a gRPC deadline as short as ours
 * failed a call whose reply was already there (a client stopped by a pause-in-call with
 * afterMs 0 had its lease grant time out on resume; the simulator's was granted). gRPC's only
 * frees a call nobody waits for any more.
 */
const GRPC_DEADLINE_SLACK_MS = 30_000;

function deadlineOf(ms: number): { deadline: Date } {
  return { deadline: new Date(Date.now() + ms + GRPC_DEADLINE_SLACK_MS) };
}

const createRevisionIs = (k: string, revision: bigint | 0): ICompare => ({
  key: key(k),
  target: CompareTarget.Create,
  result: CompareResult.Equal,
  create_revision: revision.toString(),
});

export function etcdApi(client: Etcd3, defaultTimeoutMs: number): EtcdApi {
  const timeoutOf = (opts?: CallOptions): number => opts?.timeoutMs ?? defaultTimeoutMs;
  const run = <T>(
    opts: CallOptions | undefined,
    call: (ms: number) => Promise<T>,
  ): Promise<CallResult<T>> => {
    const ms = timeoutOf(opts);
    return callWithDeadline(
      ETCD_NODE,
      ms,
      () => call(ms),
      (e) => classifyEtcdError(ETCD_NODE, e),
    );
  };
  const txn = (
    compare: ICompare[],
    success: IRequestOp[],
    failure: IRequestOp[],
    ms: number,
  ): Promise<ITxnResponse> => client.kv.txn({ compare, success, failure }, deadlineOf(ms));

  const leaseKeepAlive = (leaseId: string, opts?: CallOptions): Promise<CallResult<{ ttlMs: number }>> =>
    run(opts, async (ms) => {
      const stream = await client.leaseClient.leaseKeepAlive(deadlineOf(ms));
      try {
        const reply = await new Promise<{ TTL: string }>((resolve, reject) => {
          stream.on("data", resolve);
          stream.on("error", reject);
          stream.on("end", () => reject(new Error("keep-alive stream ended")));
          stream.write({ ID: leaseId });
        });
        return { ttlMs: Math.max(0, Number(reply.TTL)) * 1000 };
      } finally {
        stream.cancel();
      }
    });

  return {
    leaseGrant: (ttlMs, opts) =>
      run(opts, async (ms) => {
        const ttlSeconds = Math.max(1, Math.ceil(ttlMs / 1000));
        const r = await client.leaseClient.leaseGrant({ TTL: ttlSeconds, ID: 0 }, deadlineOf(ms));
        if (r.error) throw new Error(`lease grant: ${r.error}`);
        return { leaseId: r.ID, ttlMs: Number(r.TTL) * 1000 };
      }),

    leaseKeepAlive,

    keepAlive: (leaseId, intervalMs) =>
      // One keep-alive per interval, each after the last was answered, on the process's own
      // timers (as etcd's client library runs it): a SIGSTOPped client stops renewing too;
      // a simulated clock drift (env.sleep) does not reach it, as it would not reach a library.
      startRenewal(
        (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
        intervalMs,
        async () => {
          const r = await leaseKeepAlive(leaseId);
          return !r.ok || r.value.ttlMs > 0;
        },
      ),

    leaseRevoke: (leaseId, opts) =>
      run(opts, async (ms) => {
        try {
          await client.leaseClient.leaseRevoke({ ID: leaseId }, deadlineOf(ms));
        } catch (e) {
          // Revoking a lease that already expired leaves the same state as revoking it.
          if (!errorText(e).includes("lease not found")) throw e;
        }
      }),

    createIfAbsent: (k, value, leaseId, opts) =>
      run(opts, async (ms) => {
        const r = await txn(
          [createRevisionIs(k, 0)],
          [{ request_put: { key: key(k), value: Buffer.from(value), lease: leaseId } }],
          [{ request_range: { key: key(k) } }],
          ms,
        );
        if (r.succeeded) return { created: true, createRevision: BigInt(r.header.revision) };
        const kv = r.responses[0]?.response_range.kvs[0];
        if (kv === undefined) throw new Error("createIfAbsent: compare failed but the key is absent");
        return { created: false, createRevision: BigInt(kv.create_revision) };
      }),

    get: (k, opts) =>
      run(opts, async (ms): Promise<EtcdKeyInfo | null> => {
        const r = await client.kv.range({ key: key(k) }, deadlineOf(ms));
        const kv = r.kvs[0];
        if (kv === undefined) return null;
        const lease = (kv as { lease?: string }).lease;
        return {
          value: kv.value.toString(),
          createRevision: BigInt(kv.create_revision),
          modRevision: BigInt(kv.mod_revision),
          leaseId: lease === undefined || lease === "0" ? null : lease,
        };
      }),

    deleteIfCreateRevision: (k, createRevision, opts) =>
      run(opts, async (ms) => {
        const r = await txn(
          [createRevisionIs(k, createRevision)],
          [{ request_delete_range: { key: key(k) } }],
          [],
          ms,
        );
        return r.succeeded;
      }),

    waitForDeletion: async (k, createRevision, waitMs) => {
      const r = await callWithDeadline(
        ETCD_NODE,
        waitMs,
        async () => {
          const stream = await client.watchClient.watch(deadlineOf(waitMs));
          const watchFrom = (revision: bigint): void => {
            stream.write({
              create_request: {
                key: key(k),
                start_revision: revision.toString(),
                filters: [FilterType.Noput],
              },
            });
          };
          try {
            return await new Promise<true>((resolve, reject) => {
              stream.on("data", (res: IWatchResponse) => {
                if (res.events.some((e) => e.type === "Delete")) resolve(true);
                else if (res.canceled && BigInt(res.compact_revision || "0") > 0n) {
                  // The history since the key's creation is compacted away: see where the key
                  // stands now, and watch on from there.
                  client.kv.range({ key: key(k) }, deadlineOf(waitMs)).then((now) => {
                    const kv = now.kvs[0];
                    if (kv === undefined || BigInt(kv.create_revision) !== createRevision) resolve(true);
                    else watchFrom(BigInt(now.header.revision) + 1n);
                  }, reject);
                } else if (res.canceled) reject(new Error(`watch canceled: ${res.cancel_reason}`));
              });
              stream.on("error", reject);
              stream.on("end", () => reject(new Error("watch stream ended")));
              // Every deletion after the key's creation: the first one is that version's end.
              watchFrom(createRevision + 1n);
            });
          } finally {
            stream.cancel();
          }
        },
        (e) => classifyEtcdError(ETCD_NODE, e),
      );
      // A read that saw nothing in time, whatever the reason, has seen nothing.
      if (!r.ok && r.error.kind === "timeout") return { ok: true, value: false };
      return r;
    },
  };
}

/** The etcd key holding the protected value of `lock` for the `fenced-txn` resource. */
export function etcdResourceKey(lock: string): string {
  return `/lockcheck/resource/${lock}`;
}

/**
 * `fenced-txn`: the write succeeds only if the lock key still exists with create revision
 * equal to the writer's token; a write without a token is rejected. The resource is the
 * etcd cluster itself, so faults on the "resource" node do not affect it. An accepted write's
 * apply order (`seq`) is the revision of its txn (the response header's): etcd gives every
 * txn that changes a key the next revision.
 */
export function etcdTxnResourceApi(client: Etcd3, defaultTimeoutMs: number): ResourceApi {
  return {
    write(w: ResourceWrite, opts?: CallOptions): Promise<CallResult<ResourceWriteResult>> {
      const ms = opts?.timeoutMs ?? defaultTimeoutMs;
      return callWithDeadline(
        RESOURCE_NODE,
        ms,
        async () => {
          if (w.token === null || w.token <= 0n) return { accepted: false };
          const r = await client.kv.txn(
            {
              compare: [createRevisionIs(etcdLockKey(w.lock), w.token)],
              success: [{ request_put: { key: key(etcdResourceKey(w.lock)), value: Buffer.from(w.value) } }],
              failure: [],
            },
            deadlineOf(ms),
          );
          return r.succeeded ? { accepted: true, seq: BigInt(r.header.revision) } : { accepted: false };
        },
        (e) => classifyEtcdError(RESOURCE_NODE, e),
      );
    },
  };
}
