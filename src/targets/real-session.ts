/**
 * A real target's session (Target.openSession): many runs on one set of servers. With local
 * processes the servers start once (shared-world.ts) and every run gets fresh proxies and
 * clean servers; with `--cluster docker` each run starts and removes its own containers (the
 * docker world is not shared). Runs go to temp folders that are removed afterwards.
 */
import { rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Op } from "../history/op.js";
import type { LockAlgorithm } from "../locks/lock.js";
import { findBinary } from "../real/cluster/binaries.js";
import type { DockerRunOptions } from "../real/docker/world.js";
import { registerUndo } from "../real/hygiene/undo.js";
import { newRunId, type RealRunOptions, runReal } from "../real/run.js";
import { type SharedServers, startSharedServers } from "../real/shared-world.js";
import { ensureClockShim } from "../real/shim/build.js";
import type { ServerKind } from "../real/world.js";
import type { Schedule } from "../schedule/schedule.js";
import type { TargetRun, TargetSession, TargetSessionOptions } from "./target.js";

export async function openRealSession(
  world: ServerKind,
  algorithm: LockAlgorithm,
  opts: TargetSessionOptions & { servers: number },
): Promise<TargetSession> {
  const label = `${world}:${algorithm.name}`;
  let shared: SharedServers | null = null;
  if (opts.cluster !== "docker") {
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
  const runOptions: Omit<RealRunOptions, "outDir"> =
    shared !== null ? { shared } : { cluster: "docker", docker: (opts.docker ?? {}) as DockerRunOptions };
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
        return { ops: r.value.ops, stats: { ...r.value.stats } };
      } finally {
        removeOut.run();
      }
    },
    serverPids: () => shared?.serverPids() ?? [],
    close: async () => shared?.close(),
  };
}
