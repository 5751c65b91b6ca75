/**
 * The simulated targets, `sim:<lock>`: each lock algorithm in the deterministic simulator,
 * with default world options that suit it (one Redis-like node for a lease, five for
 * Redlock, a three-member cluster for consensus and zk). Times are virtual and cost nothing
 * to wait for, so TTLs are realistic (1 s) and latencies are LAN-like (1–5 ms).
 */
import { consensus } from "../locks/consensus.js";
import { lease } from "../locks/lease.js";
import { leaseToken } from "../locks/lease-token.js";
import type { LockAlgorithm } from "../locks/lock.js";
import { redlock } from "../locks/redlock.js";
import { redlockNocheck } from "../locks/redlock-nocheck.js";
import { zk } from "../locks/zk.js";
import type { ResourceMode, ScheduleOptions } from "../schedule/schedule.js";
import { type SimOptions, simulate } from "../sim/simulate.js";
import type { Target } from "./target.js";

/** World options shared by every simulated target; `servers` is set per target. */
export const SIM_BASE_OPTIONS: Omit<ScheduleOptions, "servers"> = {
  lockName: "lock",
  ttlMs: 1000,
  callTimeoutMs: 100,
  horizonMs: 6000,
  latencyMs: { min: 1, max: 5 },
  lossRate: 0,
};

function simTarget(
  algorithm: LockAlgorithm,
  servers: number,
  resources: readonly [ResourceMode, ...ResourceMode[]],
  description: string,
): Target {
  return {
    name: `sim:${algorithm.name}`,
    description,
    algorithm,
    defaults: { ...SIM_BASE_OPTIONS, servers },
    resources,
    hasLeader: algorithm.servers !== "redis",
    deterministic: true,
    ...(algorithm.renews === true ? { renews: true } : {}),
    run: runIn(algorithm),
  };
}

/** A target's `run`: the schedule simulated against `algorithm` in a world with `world`'s options. */
function runIn(algorithm: LockAlgorithm, world: SimOptions = {}): Target["run"] {
  return async (schedule) => {
    const r = await simulate(schedule, algorithm, world);
    return { ops: r.ops, stats: { ...r.stats } };
  };
}

/**
 * The same simulated target with its etcd-like cluster ending leases as soon as a real etcd may
 * (sim/servers/etcd.ts), where the target itself ends them as late as it may; null for a
 * target without one. Shrinking a failure seen on a real etcd tries it when the target does
 * not fail (runner/shrink/shrink-real.ts): that failure may have needed a lease to end early.
 */
export function withEarliestLeaseEnd(t: Target): Target | null {
  if (t.algorithm.servers !== "etcd" || !t.deterministic) return null;
  return { ...t, run: runIn(t.algorithm, { etcdLeaseEnd: "earliest" }) };
}

export const SIM_TARGETS: readonly Target[] = [
  simTarget(lease, 1, ["unfenced", "fenced"], "single Redis node, SET NX PX, no fencing token"),
  simTarget(leaseToken, 1, ["fenced", "unfenced"], "single Redis node, SET NX PX + INCR fencing token"),
  simTarget(redlock, 5, ["unfenced", "fenced"], "Redlock over 5 Redis nodes, with the validity check"),
  simTarget(
    redlockNocheck,
    5,
    ["unfenced", "fenced"],
    "Redlock over 5 Redis nodes, without the validity check",
  ),
  simTarget(
    consensus,
    3,
    ["fenced", "unfenced", "fenced-txn"],
    "etcd lock: lease + keep-alive, token = create revision",
  ),
  simTarget(zk, 3, ["fenced", "unfenced"], "ZooKeeper lock: ephemeral sequential node, token = zxid"),
];
