/**
 * The environment a lock algorithm runs in. Lock algorithms (src/locks/) are written once
 * against this interface; the simulator (src/sim/) and the real-server adapters
 * (src/real/) both implement it, so a finding in simulation is a finding about the code
 * that also runs against real redis-server and etcd.
 *
 * Contract for implementations:
 * - Every call returns a `CallResult`; nothing here throws for network or server trouble.
 * - A `timeout` error means the request may or may not have taken effect (record `info`);
 *   `unreachable` means it certainly did not (record `fail`).
 * - `now()` is this client's own wall clock in milliseconds: it may be offset, drift and jump.
 *   Algorithms must use it for all validity arithmetic, as real clients do.
 * - `sleep(ms)` waits `ms` by this client's clock. A paused client does not wake up until
 *   it is resumed, however long the pause.
 */
import type { Checkpoint } from "../schedule/schedule.js";

export type CallErrorKind = "timeout" | "unreachable";

export interface CallError {
  kind: CallErrorKind;
  /** The node the call went to, e.g. "server:3" or "resource". */
  node: string;
  detail?: string;
}

export type CallResult<T> = { ok: true; value: T } | { ok: false; error: CallError };

export interface CallOptions {
  /** Overrides the schedule's callTimeoutMs for this call. */
  timeoutMs?: number;
}

/** A Redis-like single node: the operations Redis lock recipes use. */
export interface RedisApi {
  /** "server:N" */
  readonly node: string;
  /** SET key value NX PX ttlMs: true if the key was set. */
  setNxPx(key: string, value: string, ttlMs: number, opts?: CallOptions): Promise<CallResult<boolean>>;
  /** Delete key only if its value equals `value` (the Lua compare-and-delete): true if deleted. */
  delIfEquals(key: string, value: string, opts?: CallOptions): Promise<CallResult<boolean>>;
  /** INCR key: the new value. Exact as a BigInt. */
  incr(key: string, opts?: CallOptions): Promise<CallResult<bigint>>;
  /**
   * SET key value NX PX ttlMs and, if the key was set, INCR counterKey, in one step (a Lua
   * script): the counter's new value (a fencing token taken with the grant, so no holder can
   * be paused between the two), or null if the key was held.
   */
  setNxPxIncr(
    key: string,
    value: string,
    ttlMs: number,
    counterKey: string,
    opts?: CallOptions,
  ): Promise<CallResult<bigint | null>>;
}

/**
 * One command sent to every Redis-like server at once (server:0 … server:N-1), with the
 * answers in server order once all have answered or failed — what Redlock-style algorithms
 * do on every attempt. Each server's call has its own timeout, as if made alone.
 */
export interface RedisFanOut {
  setNxPx(key: string, value: string, ttlMs: number, opts?: CallOptions): Promise<CallResult<boolean>[]>;
  delIfEquals(key: string, value: string, opts?: CallOptions): Promise<CallResult<boolean>[]>;
}

/** A background renewal a client library runs (etcd's lease KeepAlive, ZooKeeper's pings). */
export interface Renewal {
  /** Stops renewing; harmless if already stopped. */
  stop(): void;
}

export interface EtcdKeyInfo {
  value: string;
  createRevision: bigint;
  modRevision: bigint;
  leaseId: string | null;
}

/** An etcd-like linearizable store with leases and a global revision. */
export interface EtcdApi {
  /** Grant a lease of at least ttlMs (real etcd rounds up to whole seconds). */
  leaseGrant(ttlMs: number, opts?: CallOptions): Promise<CallResult<{ leaseId: string; ttlMs: number }>>;
  /** One keep-alive; the remaining TTL, or 0 if the lease is gone. */
  leaseKeepAlive(leaseId: string, opts?: CallOptions): Promise<CallResult<{ ttlMs: number }>>;
  leaseRevoke(leaseId: string, opts?: CallOptions): Promise<CallResult<void>>;
  /**
   * Keeps the lease alive in the background, as etcd's client library does (KeepAlive): a
   * keep-alive every `intervalMs` by this client's clock, answered or not, until `stop()` or
   * until an answer says the lease is gone. It stops with the client when the client is
   * paused, like every thread of a stopped process.
   */
  keepAlive(leaseId: string, intervalMs: number): Renewal;
  /**
   * Txn: if the key does not exist, put it attached to the lease. Either way, report the
   * key's create revision afterwards (the holder's, if someone else already holds it).
   */
  createIfAbsent(
    key: string,
    value: string,
    leaseId: string,
    opts?: CallOptions,
  ): Promise<CallResult<{ created: boolean; createRevision: bigint }>>;
  get(key: string, opts?: CallOptions): Promise<CallResult<EtcdKeyInfo | null>>;
  /** Txn: delete the key only if its create revision equals `createRevision`. */
  deleteIfCreateRevision(
    key: string,
    createRevision: bigint,
    opts?: CallOptions,
  ): Promise<CallResult<boolean>>;
  /**
   * Watch from `createRevision`: true once the key created at that revision is seen deleted
   * (by a delete, or with its lease) — at once if that already happened; false if `waitMs`
   * passes without seeing it, for whatever reason (still there, or the member serving the
   * watch is cut off). An error only if no member would take the watch.
   */
  waitForDeletion(key: string, createRevision: bigint, waitMs: number): Promise<CallResult<boolean>>;
}

/** A ZooKeeper-like ensemble (simulator only): sessions, ephemeral sequential nodes, zxids. */
export interface ZkApi {
  /** Open a session that the ensemble expires after `timeoutMs` without a heartbeat. */
  createSession(timeoutMs: number, opts?: CallOptions): Promise<CallResult<{ sessionId: string }>>;
  /** Heartbeat; false if the session has already expired. */
  heartbeat(sessionId: string, opts?: CallOptions): Promise<CallResult<boolean>>;
  closeSession(sessionId: string, opts?: CallOptions): Promise<CallResult<void>>;
  /**
   * Pings the session in the background, as ZooKeeper's client library does: every
   * `intervalMs` by this client's clock, until `stop()` or until a ping finds the session
   * expired. Paused with the client.
   */
  keepSessionAlive(sessionId: string, intervalMs: number): Renewal;
  /** Create `<prefix>-<seq>` owned by the session; zxid is the creating transaction's id. */
  createEphemeralSequential(
    sessionId: string,
    prefix: string,
    opts?: CallOptions,
  ): Promise<CallResult<{ path: string; seq: number; zxid: bigint }>>;
  /** Children under `prefix`, sorted by sequence number. */
  children(
    prefix: string,
    opts?: CallOptions,
  ): Promise<CallResult<{ path: string; seq: number; zxid: bigint }[]>>;
  delete(path: string, opts?: CallOptions): Promise<CallResult<boolean>>;
  /**
   * `exists` with a watch: true once the node at `path` is seen gone (at once if it is gone
   * already); false if `waitMs` passes without seeing it. An error only if no member would
   * take the watch.
   */
  waitForDeletion(path: string, waitMs: number): Promise<CallResult<boolean>>;
}

/** What a write to the protected resource presents. */
export interface ResourceWrite {
  lock: string;
  grant: string;
  /** Fencing token, or null for locks that hand none out. */
  token: bigint | null;
  value: string;
}

/** A resource's answer to a write. */
export interface ResourceWriteResult {
  accepted: boolean;
  /**
   * For an accepted write, the resource's own apply order, when it reports one: strictly
   * greater for every write it applies (history field WriteOp.seq). lockcheck's resources
   * report it; it lets checkers order writes whose calls overlapped in real time.
   */
  seq?: bigint;
}

/** The protected resource. Whether it fences is the world's configuration, not the client's choice. */
export interface ResourceApi {
  write(w: ResourceWrite, opts?: CallOptions): Promise<CallResult<ResourceWriteResult>>;
}

export interface LockEnv {
  /** This client's number (the history's process). */
  readonly clientId: number;
  /** This client's wall clock, in ms. */
  now(): number;
  /** Wait `ms` milliseconds by this client's clock. */
  sleep(ms: number): Promise<void>;
  /** Redis-like servers, server:0 … server:N-1, for targets that use them. */
  readonly redis: readonly RedisApi[];
  /**
   * The same command to all of `redis` at once. Same answers as calling each and awaiting
   * them all; the simulator runs it with one promise instead of one per server.
   */
  readonly redisAll: RedisFanOut;
  /** The etcd-like cluster, for targets that use it. */
  readonly etcd: EtcdApi | null;
  /** The ZooKeeper-like ensemble, for targets that use it. */
  readonly zk: ZkApi | null;
  readonly resource: ResourceApi;
  /**
   * Marks a point where the schedule may pause this client (see `Checkpoint`). Resolves when
   * the client may go on; in the real world the process is SIGSTOPped inside this call. Where
   * the schedule does not pause the client it may return `NOT_PAUSED` (see there).
   */
  checkpoint(point: Checkpoint): Promise<void>;
}

/**
 * What `checkpoint` returns where it does not pause: a settled promise. Awaiting it is always
 * right; hot code may skip the await (`if (p !== NOT_PAUSED) await p`), which in the simulator
 * saves a microtask and about 200 bytes per checkpoint and changes no history.
 */
export const NOT_PAUSED: Promise<void> = Promise.resolve();
