/**
 * `npm run bench:real`: the cost of the real world, measured in this one run.
 *
 * - Lock cycles per second through the full path (client process → proxy → server →
 *   resource), without faults, for redis:lease and etcd:lock, and the same workload in the
 *   simulator (wall-clock cycles per second there), printed as a ratio.
 * - Start-up time of the 5-node Redis fleet (plus the resource) and of the 3-member etcd
 *   cluster (plus the resource), median of 3.
 * - Real fuzz search throughput, runs per minute, one run at a time against two at once
 *   (`--workers 2`: each on servers of its own), on a campaign that finds nothing
 *   (redis:lease-token, fenced), and their ratio.
 * - Median time to the first violation of `run` and `fuzz` with pauses on redis:lease,
 *   redis:redlock-nocheck, etcd:lock and the library adapters of docs/libraries.md
 *   (bench/hunt.ts); seeds from BENCH_HUNT_SEEDS (default 1,2,3), BENCH_HUNT_SEEDS= skips it,
 *   BENCH_HUNT_ONLY=word,… keeps the cases whose target contains a word, BENCH_HUNT_MODES=run
 *   (or fuzz) measures one mode only, BENCH_HUNT_FAULTS=clock (say) hunts with other faults than
 *   pause, BENCH_HUNT_ONLY_HUNT=1 skips the figures above.
 *
 * A lock cycle is a successful acquire, one resource write and a release. Two clients
 * contend for the lock with no think or hold time, so the figure is the throughput of the
 * lock service itself as lockcheck drives it. Requires redis-server and etcd on PATH.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Op } from "../src/history/op.js";
import { consensus } from "../src/locks/consensus.js";
import { lease } from "../src/locks/lease.js";
import type { LockAlgorithm } from "../src/locks/lock.js";
import { findBinary } from "../src/real/cluster/binaries.js";
import { runReal } from "../src/real/run.js";
import type { ServerKind } from "../src/real/world.js";
import { startWorld } from "../src/real/world.js";
import { fuzz } from "../src/runner/fuzz.js";
import type { Schedule } from "../src/schedule/schedule.js";
import { simulate } from "../src/sim/simulate.js";
import { realTargetFor } from "../src/targets/real.js";
import { printHunt } from "./hunt.js";

const CLIENTS = 2;
const CYCLES_PER_CLIENT = 150;

function workload(target: string, servers: number, ttlMs: number, callTimeoutMs: number): Schedule {
  return {
    version: 1,
    target,
    resource: "unfenced",
    seed: 1,
    options: {
      lockName: "lock",
      ttlMs,
      callTimeoutMs,
      horizonMs: 60_000,
      latencyMs: { min: 0, max: 0 },
      lossRate: 0,
      servers,
    },
    clients: Array.from({ length: CLIENTS }, (_, id) => ({
      id,
      cycles: Array.from({ length: CYCLES_PER_CLIENT }, () => ({ thinkMs: 0, holdMs: 0, writes: 1 })),
    })),
    faults: [],
  };
}

/** Completed lock cycles: releases that succeeded after an accepted write. */
function cycles(ops: readonly Op[]): number {
  return ops.filter((o) => o.process !== "nemesis" && o.f === "release" && o.type === "ok").length;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

async function realThroughput(schedule: Schedule, algorithm: LockAlgorithm, servers: ServerKind) {
  const out = mkdtempSync(join(tmpdir(), "lockcheck-bench-real-"));
  try {
    const r = await runReal(schedule, { algorithm, servers }, { outDir: out });
    if (!r.ok) throw new Error(r.error);
    const n = cycles(r.value.ops);
    return { cycles: n, perSecond: n / (r.value.stats.runMs / 1000), setupMs: r.value.stats.setupMs };
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

async function simThroughput(schedule: Schedule, algorithm: LockAlgorithm) {
  const started = performance.now();
  const r = await simulate({ ...schedule, target: `sim:${algorithm.name}` }, algorithm);
  const wallMs = performance.now() - started;
  const n = cycles(r.ops);
  return { cycles: n, perSecond: n / (wallMs / 1000), virtualMs: r.stats.virtualMs };
}

/** Runs per minute of a real fuzz campaign that finds nothing, `parallel` runs at once. */
async function realSearchRate(
  parallel: number,
): Promise<{ perMinute: number; runs: number; violations: number }> {
  const target = realTargetFor("redis:lease-token");
  if (target === undefined) throw new Error("no redis:lease-token");
  const started = performance.now();
  const r = await fuzz({
    target,
    resource: "fenced",
    seed: 7,
    runs: 8,
    faults: ["pause", "partition"],
    options: { horizonMs: 3000 },
    shrink: false,
    real: { parallel },
  });
  if (r.error !== null) throw new Error(r.error.message);
  const minutes = (performance.now() - started) / 60_000;
  return { perMinute: r.runs / minutes, runs: r.runs, violations: r.counterexample === null ? 0 : 1 };
}

async function startupMs(kind: ServerKind, count: number): Promise<number> {
  const redisServer = findBinary("redis-server");
  const etcd = findBinary("etcd");
  const times: number[] = [];
  for (let i = 0; i < 3; i++) {
    const started = performance.now();
    const world = await startWorld({
      runId: `lcbench${i}`,
      servers: { kind, count },
      resource: "unfenced",
      clientIds: [],
      redisServerBinary: redisServer.ok ? redisServer.value : "",
      etcdBinary: etcd.ok ? etcd.value : null,
      clockShim: null,
      reaper: null,
    });
    if (!world.ok) throw new Error(world.error);
    times.push(performance.now() - started);
    await world.value.stop();
  }
  return median(times);
}

async function main(): Promise<void> {
  for (const bin of ["redis-server", "etcd"] as const) {
    const b = findBinary(bin);
    if (!b.ok) throw new Error(b.error);
  }
  const seeds = (process.env.BENCH_HUNT_SEEDS ?? "1,2,3")
    .split(",")
    .filter((x) => x.trim() !== "")
    .map(Number);
  if (process.env.BENCH_HUNT_ONLY_HUNT === "1") {
    await printHunt(seeds);
    return;
  }
  console.log(
    `lock cycles/s, ${CLIENTS} clients × ${CYCLES_PER_CLIENT} cycles, no faults (acquire + 1 write + release)`,
  );
  const cases = [
    {
      name: "redis:lease",
      schedule: workload("redis:lease", 1, 500, 200),
      algorithm: lease,
      servers: "redis" as const,
    },
    {
      name: "etcd:lock",
      schedule: workload("etcd:lock", 3, 1000, 1000),
      algorithm: consensus,
      servers: "etcd" as const,
    },
  ];
  for (const c of cases) {
    const real = await realThroughput(c.schedule, c.algorithm, c.servers);
    const sim = await simThroughput(c.schedule, c.algorithm);
    console.log(
      `  ${c.name.padEnd(12)} real ${real.perSecond.toFixed(0).padStart(6)} cycles/s (${real.cycles} cycles; set-up ${(real.setupMs / 1000).toFixed(1)} s)` +
        `   sim ${sim.perSecond.toFixed(0).padStart(8)} cycles/s of wall time (${sim.cycles} cycles)` +
        `   sim/real ${(sim.perSecond / real.perSecond).toFixed(1)}×`,
    );
  }
  console.log("cluster start-up (median of 3, until every server answers)");
  console.log(`  5 redis-servers + resource: ${(await startupMs("redis", 5)).toFixed(0)} ms`);
  console.log(`  3-member etcd + resource:   ${(await startupMs("etcd", 3)).toFixed(0)} ms`);
  console.log(
    "real fuzz search, redis:lease-token (fenced) --faults pause,partition, 8 runs of 3 s (set-up included)",
  );
  const one = await realSearchRate(1);
  const two = await realSearchRate(2);
  console.log(
    `  --workers 1 ${one.perMinute.toFixed(1)} runs/min, --workers 2 ${two.perMinute.toFixed(1)} runs/min: ${(two.perMinute / one.perMinute).toFixed(2)}×` +
      (one.violations + two.violations > 0 ? " (A VIOLATION STOPPED A CAMPAIGN)" : ""),
  );
  if (seeds.length > 0) await printHunt(seeds);
}

await main();
