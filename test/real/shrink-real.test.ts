/**
 * Shrinking a failure found on real redis-servers (shrink-real.ts): a redis:lease schedule
 * with a pause longer than the TTL plus extra clients and faults (one of them due long after
 * the run ends) shrinks to fewer clients and faults — in the simulator twin, then confirmed —
 * or on real servers alone; either way the result fails again when replayed on real servers,
 * three times out of three. Every real run leaves nothing behind.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { newRunId, runReal } from "../../src/real/run.js";
import { runAndCheck } from "../../src/runner/execute.js";
import { probeOf, violationKind } from "../../src/runner/same-violation.js";
import { scheduleSize } from "../../src/runner/schedule-size.js";
import { openSessionPool, runOnPool } from "../../src/runner/session-pool.js";
import { shrinkOnRealServers } from "../../src/runner/shrink/shrink-real.js";
import type { Schedule } from "../../src/schedule/schedule.js";
import { findTarget } from "../../src/targets/index.js";
import type { Target } from "../../src/targets/target.js";
import { missingBinaries, schedule } from "./helpers.js";
import { leftovers } from "./run-helpers.js";

const missing = missingBinaries(["redis-server"]);

/** redis:lease, with every run's id kept so that the test can check each left nothing behind. */
const runIds: string[] = [];
function trackedRedisLease(): Target {
  const found = findTarget("redis:lease");
  if (!found.ok) throw new Error(found.error.message);
  const base = found.value;
  return {
    ...base,
    async run(s) {
      const runId = newRunId();
      runIds.push(runId);
      const outDir = mkdtempSync(join(tmpdir(), "lockcheck-test-shrink-"));
      try {
        const r = await runReal(s, { algorithm: base.algorithm, servers: "redis" }, { outDir }, runId);
        if (!r.ok) throw new Error(r.error);
        return { ops: r.value.ops, stats: { ...r.value.stats } };
      } finally {
        rmSync(outDir, { recursive: true, force: true });
      }
    },
  };
}

afterEach(async () => {
  for (const id of runIds.splice(0)) {
    expect(await leftovers(id)).toEqual({ processes: [], stopped: [], dirs: [] });
  }
});

/** Client 0 pauses right after acquiring for 3 × TTL; three more clients and three more faults. */
const failing: Schedule = schedule(
  "redis:lease",
  "unfenced",
  { servers: 1, ttlMs: 500, callTimeoutMs: 300, horizonMs: 3000 },
  [
    { id: 0, cycles: [{ thinkMs: 0, holdMs: 100, writes: 2 }] },
    {
      id: 1,
      cycles: Array.from({ length: 3 }, () => ({ thinkMs: 250, holdMs: 100, writes: 2 })),
    },
    {
      id: 2,
      cycles: [
        { thinkMs: 400, holdMs: 50, writes: 1 },
        { thinkMs: 300, holdMs: 50, writes: 1 },
      ],
    },
    { id: 3, cycles: [{ thinkMs: 600, holdMs: 50, writes: 1 }] },
  ],
  [
    { kind: "pause-at", client: 0, checkpoint: "acquired", occurrence: 0, durationMs: 1500 },
    { kind: "pause", node: "client:3", at: 200, durationMs: 100 },
    { kind: "delay", from: "client:2", to: "server:0", at: 300, durationMs: 200, extraMs: 20 },
    // Due long after the run ends: it never fires.
    { kind: "pause", node: "client:2", at: 20_000, durationMs: 100 },
  ],
);

async function expectSmallerAndFailingThrice(t: Target, shrunk: Schedule) {
  const before = scheduleSize(failing);
  const after = scheduleSize(shrunk);
  expect(after.clients).toBeLessThan(before.clients);
  expect(after.faults).toBeLessThan(before.faults);
  expect(shrunk.faults.some((f) => "at" in f && f.at >= 20_000)).toBe(false);
  for (let k = 0; k < 3; k++) {
    const again = await runAndCheck(t, shrunk);
    expect(violationKind(again.verdicts), `replay ${k + 1}: ${JSON.stringify(shrunk)}`).toBe("stale-write");
  }
}

describe.skipIf(missing.length > 0)("shrinking on real redis-servers", () => {
  it("in the simulator twin first, confirmed on real servers; the result fails on 3 of 3 replays", async () => {
    const t = trackedRedisLease();
    const r = await shrinkOnRealServers(t, failing, { kind: "stale-write", runs: 2, marginMs: 50 });
    expect(r.shrunkIn).toBe("sim");
    expect(r.failingRun).not.toBeNull();
    expect(violationKind(r.failingRun!.verdicts)).toBe("stale-write");
    expect(r.confirmed).toEqual({ failed: 2, runs: 2 });
    expect(r.schedule.target).toBe("redis:lease");
    // The shrink log: the twin's shrinking in a line, then its result's real runs.
    expect(r.log.twin).toMatchObject({ twin: "sim:lease" });
    expect(r.log.trials[0]).toMatchObject({ step: "twin confirmed", runs: ["failed", "failed"], kept: true });
    await expectSmallerAndFailingThrice(t, r.schedule);
  }, 120_000);

  it("on real servers alone: drops the fault that never fired, keeps only candidates that fail 2 of 2", async () => {
    const t = trackedRedisLease();
    const first = await runAndCheck(t, failing);
    expect(violationKind(first.verdicts)).toBe("stale-write");
    const evidence = probeOf("stale-write", first.ops, first.verdicts).evidence!;
    const r = await shrinkOnRealServers(t, failing, {
      kind: "stale-write",
      runs: 2,
      marginMs: 50,
      simFirst: false,
      evidence,
      budget: { maxRuns: 8 },
    });
    expect(r.shrunkIn).toBe("real");
    expect(r.simRuns).toBe(0);
    expect(r.failingRun).not.toBeNull();
    // Every real run is in the shrink log, under the candidate it was a run of.
    expect(r.log.trials.reduce((n, trial) => n + trial.runs.length, 0)).toBe(r.realRuns);
    expect(r.log.trials.filter((trial) => trial.step === "pass" && trial.kept)).toHaveLength(r.steps);
    await expectSmallerAndFailingThrice(t, r.schedule);
  }, 300_000);

  it("two candidates at a time, each on servers of its own started once, all stopped at the end", async () => {
    const t = trackedRedisLease();
    const first = await runAndCheck(t, failing);
    expect(violationKind(first.verdicts)).toBe("stale-write");
    const opened = await openSessionPool(t, { resource: "unfenced", servers: 1 }, 2);
    if (!opened.ok || opened.value === null) throw new Error(`no session pool: ${JSON.stringify(opened)}`);
    const pool = opened.value;
    const run = runOnPool(pool);
    let inFlight = 0;
    let most = 0;
    const pids = new Set<number>();
    try {
      const r = await shrinkOnRealServers(t, failing, {
        kind: "stale-write",
        runs: 2,
        marginMs: 50,
        simFirst: false,
        evidence: probeOf("stale-write", first.ops, first.verdicts).evidence!,
        budget: { maxRuns: 4 },
        parallel: 2,
        runOnServers: async (s, kind, abandoned) => {
          most = Math.max(most, ++inFlight);
          try {
            return await run(s, kind, abandoned);
          } finally {
            inFlight--;
          }
        },
      });
      expect(r.shrunkIn).toBe("real");
      expect(r.failingRun).not.toBeNull();
      expect(scheduleSize(r.schedule).faults).toBeLessThan(scheduleSize(failing).faults);
      expect(most).toBe(2);
      expect(pool.size()).toBe(2);
      for (const pid of pool.serverPids()) pids.add(pid);
      expect(pids.size).toBeGreaterThanOrEqual(2);
    } finally {
      await pool.close();
    }
    for (const pid of pids) expect(() => process.kill(pid, 0)).toThrow();
  }, 300_000);
});
