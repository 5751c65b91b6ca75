/**
 * The real-server targets: `redis:<lock>` (standalone redis-servers) and `etcd:lock` (a
 * 3-member etcd cluster, the `consensus` algorithm), each with a durable redis-server as the
 * protected resource (or, for `fenced-txn`, the etcd cluster itself).
 *
 * Defaults are short so real runs stay quick: TTLs of about a second (etcd rounds lease
 * TTLs up to whole seconds), loopback call timeouts. The schedule's latency and loss options
 * do not apply here: the network is the real loopback, changed only by faults.
 *
 * This module is cheap to import (the registry loads it at start-up): the machinery of a
 * real run is imported only when a run starts.
 */
import { rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { consensus } from "../locks/consensus.js";
import { lease } from "../locks/lease.js";
import { leaseToken } from "../locks/lease-token.js";
import type { LockAlgorithm } from "../locks/lock.js";
import { redlock } from "../locks/redlock.js";
import { redlockNocheck } from "../locks/redlock-nocheck.js";
import type { ResourceMode, Schedule, ScheduleOptions } from "../schedule/schedule.js";
import { targetRunOf } from "./real-target-run.js";
import type { Target, TargetRun } from "./target.js";

export const REAL_BASE_OPTIONS: Omit<ScheduleOptions, "servers" | "ttlMs" | "callTimeoutMs"> = {
  lockName: "lock",
  horizonMs: 4000,
  latencyMs: { min: 0, max: 0 },
  lossRate: 0,
};

export type RealWorldName = NonNullable<Target["realWorld"]>;

function realTarget(
  world: RealWorldName,
  lockName: string,
  algorithm: LockAlgorithm,
  options: Pick<ScheduleOptions, "servers" | "ttlMs" | "callTimeoutMs"> & { horizonMs?: number },
  resources: readonly [ResourceMode, ...ResourceMode[]],
  description: string,
): Target {
  return {
    name: `${world}:${lockName}`,
    description,
    algorithm,
    defaults: { ...REAL_BASE_OPTIONS, ...options },
    resources,
    hasLeader: world === "etcd",
    deterministic: false,
    realWorld: world,
    ...(algorithm.renews === true ? { renews: true } : {}),
    async run(schedule: Schedule): Promise<TargetRun> {
      const { runReal, newRunId } = await import("../real/run.js");
      const { registerUndo } = await import("../real/hygiene/undo.js");
      const runId = newRunId();
      const outDir = join(tmpdir(), `lockcheck-${runId}-out`);
      // An undo, not only `finally`: on SIGINT/SIGTERM the process exits from the undo list.
      // Registered before the run's own undos, so it runs after them (they write into it).
      const removeOutDir = registerUndo(`run folder ${outDir}`, () =>
        rmSync(outDir, { recursive: true, force: true }),
      );
      try {
        const r = await runReal(schedule, { algorithm, servers: world }, { outDir }, runId);
        if (!r.ok) throw new Error(`${world}:${lockName}: ${r.error}`);
        return targetRunOf(r.value);
      } finally {
        removeOutDir.run();
      }
    },
    async openSession(opts) {
      const { openRealSession } = await import("./real-session.js");
      return openRealSession(world, algorithm, { ...opts, servers: opts.servers ?? options.servers });
    },
  };
}

/** The built-in real targets, then those added for users' modules (addRealModuleTarget). */
const realTargets: Target[] = [
  realTarget(
    "redis",
    "lease",
    lease,
    { servers: 1, ttlMs: 500, callTimeoutMs: 200 },
    ["unfenced", "fenced"],
    "real redis-server, SET NX PX, no fencing token",
  ),
  realTarget(
    "redis",
    "lease-token",
    leaseToken,
    { servers: 1, ttlMs: 500, callTimeoutMs: 200 },
    ["fenced", "unfenced"],
    "real redis-server, SET NX PX + INCR fencing token",
  ),
  realTarget(
    "redis",
    "redlock",
    redlock,
    { servers: 5, ttlMs: 1000, callTimeoutMs: 100 },
    ["unfenced", "fenced"],
    "Redlock over 5 real redis-servers, with the validity check",
  ),
  realTarget(
    "redis",
    "redlock-nocheck",
    redlockNocheck,
    { servers: 5, ttlMs: 1000, callTimeoutMs: 100 },
    ["unfenced", "fenced"],
    "Redlock over 5 real redis-servers, without the validity check",
  ),
  realTarget(
    "etcd",
    "lock",
    consensus,
    { servers: 3, ttlMs: 1000, callTimeoutMs: 1000 },
    ["fenced", "unfenced", "fenced-txn"],
    "real 3-member etcd cluster: lease + keep-alive, token = create revision",
  ),
];

export const REAL_TARGETS: readonly Target[] = realTargets;

/** Default servers, TTL and call timeout of a user's lock on real servers, per world. */
const MODULE_DEFAULTS: Record<RealWorldName, Pick<ScheduleOptions, "servers" | "ttlMs" | "callTimeoutMs">> = {
  redis: { servers: 1, ttlMs: 500, callTimeoutMs: 200 },
  etcd: { servers: 3, ttlMs: 1000, callTimeoutMs: 1000 },
};

/**
 * `redis:<name>` or `etcd:<name>` for a user's LockAlgorithm (src/custom/module-target.ts),
 * added to REAL_TARGETS. Its client processes import the algorithm from its module (the
 * caller records which, src/locks/algorithm-modules.ts). `options` may override the
 * servers, TTL and call timeout. The target renews (Target.renews) if the algorithm says so.
 */
export function addRealModuleTarget(
  world: RealWorldName,
  algorithm: LockAlgorithm,
  options: Partial<Pick<ScheduleOptions, "servers" | "ttlMs" | "callTimeoutMs" | "horizonMs">> = {},
  description = `${algorithm.name} (user module) on real ${world === "redis" ? "redis-servers" : "etcd"}`,
): Target {
  const d = MODULE_DEFAULTS[world];
  const target = realTarget(
    world,
    algorithm.name,
    algorithm,
    {
      servers: options.servers ?? d.servers,
      ttlMs: options.ttlMs ?? d.ttlMs,
      callTimeoutMs: options.callTimeoutMs ?? d.callTimeoutMs,
      ...(options.horizonMs === undefined ? {} : { horizonMs: options.horizonMs }),
    },
    algorithm.fencing ? ["fenced", "unfenced"] : ["unfenced", "fenced"],
    description,
  );
  if (realTargets.some((t) => t.name === target.name))
    throw new RangeError(`addRealModuleTarget: "${target.name}" already exists`);
  realTargets.push(target);
  return target;
}

/** The real target that runs the same lock algorithm as `name` (e.g. "sim:consensus" → "etcd:lock"). */
export function realTargetFor(name: string): Target | undefined {
  const lockPart = name.slice(name.indexOf(":") + 1);
  return REAL_TARGETS.find((t) => t.name === name || t.algorithm.name === lockPart);
}
