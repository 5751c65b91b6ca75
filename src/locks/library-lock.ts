/**
 * The library adapter: a lock client library (npm `redlock`, `redis-semaphore`, `etcd3`'s
 * `client.lock()`, your own…) tested as it is, on real servers, with real faults.
 *
 * Unlike a plain lock (plain-lock.ts), which runs in the lockcheck process against servers you
 * start, a library lock says which servers it needs (`servers`, `count`) and lockcheck starts
 * them. Each client of the schedule is its own OS process that imports your module and calls
 * `connect` once: a client pause is a SIGSTOP of that process, so your library's own timers
 * (lease keep-alives, auto-extension, retries) freeze too, as in a real GC pause. `endpoints`
 * are this client's per-link TCP proxies to those servers, so partitions, delays,
 * kill/restart and the Redis clock shim reach your library's own connections.
 *
 * The client contract is the plain lock's (acquire / release / optional write / close).
 */
import type { PlainLockClient } from "./plain-lock.js";

export type { PlainGrant as LibraryGrant, PlainLockClient as LibraryLockClient } from "./plain-lock.js";

/** Where one server is reached from this client: its link's proxy, or a server you run yourself. */
export interface LibraryEndpoint {
  host: string;
  port: number;
}

/** What `connect` gets: one per client process. */
export interface LibraryClientContext {
  clientId: number;
  /** This client's wall clock in ms, with the schedule's client clock faults applied. */
  now(): number;
  /**
   * The lock servers, in order (server:0 … server:N-1): Redis nodes, or etcd members. Connect
   * to exactly these (not to your usual addresses) or faults cannot reach your connections.
   */
  endpoints: readonly LibraryEndpoint[];
  /** The adapter options recorded in the schedule (`--module-options`), or `{}`. */
  options: Readonly<Record<string, unknown>>;
}

export interface LibraryLock {
  /** Lowercase letters, digits and dashes: the target is `redis:<name>` or `etcd:<name>`. */
  name: string;
  /** The servers lockcheck starts for it: standalone redis-servers, or an etcd cluster. */
  servers: "redis" | "etcd";
  /** How many (default 1 redis-server, 3 etcd members). */
  count?: number;
  /** Whether grants carry a fencing token (then the resource is `fenced` by default). */
  fencing: boolean;
  /**
   * Whether your library renews the lease in the background while the lock is held (etcd3's
   * `client.lock()` keep-alive, a Redisson-style watchdog, redis-semaphore's auto-refresh).
   * Default false. With true, generated schedules hold the lock for up to 3 × the lease (not
   * 0.8 × TTL), and `partition` faults also cut one client off from every lock server for
   * longer than the lease: renewals that fail silently then let the lease expire under a
   * holder that keeps writing. Leave it false for a lock that does not renew: its holds past
   * the TTL would expire with no fault at all.
   */
  renews?: boolean;
  /** Lease time requested on acquire, run length and call timeout, if the defaults do not suit. */
  options?: { ttlMs?: number; horizonMs?: number; callTimeoutMs?: number };
  /** Make this process's client: open your library's connections to `endpoints` here. */
  connect(ctx: LibraryClientContext): PlainLockClient | Promise<PlainLockClient>;
}

/** Identity function that gives a library adapter module its types. */
export function defineLibraryLock(lock: LibraryLock): LibraryLock {
  return lock;
}

/** A library lock: `connect` plus `servers: "redis" | "etcd"` (a plain lock has no `servers`). */
export function isLibraryLock(x: unknown): x is LibraryLock {
  if (typeof x !== "object" || x === null) return false;
  const o = x as Record<string, unknown>;
  return (
    typeof o.name === "string" &&
    typeof o.connect === "function" &&
    typeof o.fencing === "boolean" &&
    (o.servers === "redis" || o.servers === "etcd") &&
    (o.renews === undefined || typeof o.renews === "boolean") &&
    (o.count === undefined ||
      (Number.isInteger(o.count) && (o.count as number) >= 1 && (o.count as number) <= 9))
  );
}
