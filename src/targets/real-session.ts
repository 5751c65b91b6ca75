/**
 * A real target's session (Target.openSession): many runs on one set of servers. The servers
 * start once, local processes (shared-world.ts) or containers with `--cluster docker`
 * (docker/shared-world.ts), and every run gets fresh proxies and clean servers. Runs go to
 * temp folders that are removed afterwards.
 */
import { rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Op } from "../history/op.js";
import type { LockAlgorithm } from "../locks/lock.js";
import { findBinary } from "../real/cluster/binaries.js";
import { registerUndo } from "../real/hygiene/undo.js";
import { newRunId, type RealRunOptions, runReal } from "../real/run.js";
import { type SharedServers, startSharedServers } from "../real/shared-world.js";
import { ensureClockShim } from "../real/shim/build.js";
import type { ServerKind } from "../real/world.js";
import type { Schedule } from "../schedule/schedule.js";
import { targetRunOf } from "./real-target-run.js";
import type { TargetRun, TargetSession, TargetSessionOptions } from "./target.js";

export async function openRealSession(
  world: ServerKind,
  algorithm: LockAlgorithm,
  opts: TargetSessionOptions & { servers: number },
): Promise<TargetSession> {
  const label = `${world}:${algorithm.name}`;
  let shared: SharedServers;
  if (opts.cluster === "docker") {
    const { startSharedDockerServers } = await import("../real/docker/shared-world.js");
    const started = await startSharedDockerServers(
      { servers: { kind: world, count: opts.servers }, resource: opts.resource },
      opts.docker ?? {},
    );
    if (!started.ok) throw new Error(`${label}: starting containers: ${started.error}`);
    shared = started.value;
  } else {
    const needsRedis = world === "redis" || opts.resource !== "fenced-txn";
    const redis = findBinary("redis-server");
    if (needsRedis && !redis.ok) throw new Error(`${label}: ${redis.error}`);
    let etcd: string | null = null;
    if (world === "etcd") {
      const e = findBinary("etcd");
      if (!e.ok) throw new Error(`${label}: ${e.error}`);
      etcd = e.value;
    }
    let clockShim: string | null = null;
    if (world === "redis" && opts.clockFaults === true) {
      const shim = ensureClockShim();
      if (!shim.ok) throw new Error(`${label}: ${shim.error}`);
      clockShim = shim.value;
    }
    const started = await startSharedServers({
      servers: { kind: world, count: opts.servers },
      resource: opts.resource,
      redisServerBinary: redis.ok ? redis.value : "",
      etcdBinary: etcd,
      clockShim,
    });
    if (!started.ok) throw new Error(`${label}: starting servers: ${started.error}`);
    shared = started.value;
  }
  // On docker the run still checks its schedule fits containers (no server clock faults).
  const runOptions: Omit<RealRunOptions, "outDir"> =
    opts.cluster === "docker" ? { shared, cluster: "docker" } : { shared };
  return {
    async run(schedule: Schedule, stopWhen?: (ops: Op[]) => boolean): Promise<TargetRun> {
      const runId = newRunId();
      const outDir = join(tmpdir(), `lockcheck-${runId}-out`);
      // Removed on SIGINT/SIGTERM too (the run's own undo entries do not know this folder).
      const removeOut = registerUndo("run folder", () => rmSync(outDir, { recursive: true, force: true }));
      try {
        const r = await runReal(
          schedule,
          { algorithm, servers: world },
          { ...runOptions, outDir, ...(stopWhen === undefined ? {} : { stopWhen }) },
          runId,
        );
        if (!r.ok) throw new Error(`${label}: ${r.error}`);
        return targetRunOf(r.value);
      } finally {
        removeOut.run();
      }
    },
    serverPids: () => shared.serverPids(),
    close: async () => shared.close(),
  };
}
