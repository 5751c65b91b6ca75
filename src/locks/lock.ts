/**
 * A lock algorithm, written once against `LockEnv` and run unchanged in the simulator and
 * against real servers. One algorithm per file in this folder.
 *
 * Contract:
 * - `acquire` tries once (it may retry internally within `ttlMs`) and reports the outcome
 *   honestly: `granted` only when the algorithm's own rules say the caller holds the lock;
 *   `unknown` when a request may have taken effect without the caller learning so (the
 *   history records `info`); `denied` when it certainly does not hold it.
 * - A granted lock carries a `handle` that `release` needs, and the fencing `token` if the
 *   algorithm has one (null otherwise).
 * - Neither function throws for network trouble; both return outcomes.
 * - Background work (lease keep-alives) is started by `acquire` and stopped by `release`.
 */
import type { LockEnv } from "../env/env.js";

export interface LockRequest {
  lock: string;
  ttlMs: number;
  /** Unique per acquisition (the grant id); Redis recipes store it as the key's value. */
  owner: string;
}

export type AcquireOutcome =
  | { outcome: "granted"; token: bigint | null; handle: LockHandle }
  | { outcome: "denied"; reason: string }
  | { outcome: "unknown"; reason: string };

/** Whatever the algorithm needs to release; opaque to callers. */
export interface LockHandle {
  readonly request: LockRequest;
  readonly state: unknown;
}

export type ReleaseOutcome =
  | { outcome: "released" }
  | { outcome: "not-held" }
  | { outcome: "unknown"; reason: string };

export interface LockAlgorithm {
  /** e.g. "lease", "redlock" — the part after "sim:" / "redis:" in a target. */
  readonly name: string;
  /** Which servers it talks to. */
  readonly servers: "redis" | "etcd" | "zk";
  /** Whether grants carry a fencing token. */
  readonly fencing: boolean;
  /**
   * Whether it renews its lease in the background while the lock is held (a keep-alive,
   * session heartbeats). Default false. With true, generated schedules hold the lock up to
   * 3 × the lease and partitions may cut a holder off from every lock server for longer than
   * it: renewals that fail then let the lease expire under a holder that goes on writing.
   */
  readonly renews?: boolean;
  acquire(env: LockEnv, req: LockRequest): Promise<AcquireOutcome>;
  release(env: LockEnv, handle: LockHandle): Promise<ReleaseOutcome>;
}
