/**
 * What a real shrink spends on a long run. A client that repeats its cycles runs to the
 * horizon on real servers, so:
 *
 * - the input's run, made to find its failure, ends at its first violation (on the servers of
 *   the shrink's pool), not at the horizon;
 * - the twin's result is confirmed cut short just after its violation (cut-after-violation.ts),
 *   so that its confirmations and every later replay are short too; if the real servers do not
 *   confirm the cut, the uncut result is confirmed as before.
 *
 * The "real" target here is redis:lease whose runs are sim:lease's (deterministic), so each
 * assertion is exact; test/real/shrink-real.test.ts runs the same path on a real redis-server.
 */
import { describe, expect, it } from "vitest";
import { shrinkFailing } from "../../src/api/shrink.js";
import { checkOps } from "../../src/checkers/index.js";
import type { Op } from "../../src/history/op.js";
import { probeOf, violationKind } from "../../src/runner/same-violation.js";
import { cutSlackMs, violationEndMs } from "../../src/runner/shrink/cut-after-violation.js";
import { cutInTwin } from "../../src/runner/shrink/shrink-real.js";
import type { Schedule } from "../../src/schedule/schedule.js";
import type { Target, TargetRun } from "../../src/targets/target.js";
import { scheduleFor, target } from "./schedules.js";

const HORIZON_MS = 20_000;
const TTL_MS = 500;

/** Client 0 paused past its lease at its grant; client 1 takes the lock and keeps cycling to the horizon. */
const longRun: Schedule = {
  ...scheduleFor("redis:lease", {
    resource: "unfenced",
    options: { ttlMs: TTL_MS, callTimeoutMs: 200, horizonMs: HORIZON_MS, servers: 1 },
    clients: [[{ thinkMs: 0, holdMs: 200, writes: 2 }], [{ thinkMs: 100, holdMs: 100, writes: 1 }]],
    faults: [{ kind: "pause-at", client: 0, checkpoint: "acquired", occurrence: 0, durationMs: 3 * TTL_MS }],
  }),
};
longRun.clients[1] = { ...longRun.clients[1]!, repeat: true };

interface RealRun {
  horizonMs: number;
  /** Asked to stop at a violation (a pool's run). */
  stoppable: boolean;
  /** When its history's last op came, ms. */
  lastOpMs: number;
}

/**
 * redis:lease whose runs are sim:lease's, on "sessions" (so shrinking makes a pool of them);
 * a run asked to stop ends at the first completion after which `stopWhen` says so. `confirms`
 * decides whether a schedule fails there at all (else the run's history is empty: it passes).
 */
function simulatedRedisLease(confirms: (s: Schedule) => boolean): Target & { runs: RealRun[] } {
  const sim = target("sim:lease");
  const runs: RealRun[] = [];
  const run = async (s: Schedule, stopWhen?: (ops: Op[]) => boolean): Promise<TargetRun> => {
    let ops = confirms(s) ? (await sim.run({ ...s, target: "sim:lease" })).ops : [];
    if (stopWhen !== undefined) {
      const end = ops.findIndex((o, i) => o.type !== "invoke" && stopWhen(ops.slice(0, i + 1)));
      if (end >= 0) ops = ops.slice(0, end + 1);
    }
    runs.push({
      horizonMs: s.options.horizonMs,
      stoppable: stopWhen !== undefined,
      lastOpMs: (ops.at(-1)?.time ?? 0) / 1e6,
    });
    return { ops, stats: {} };
  };
  return {
    ...target("redis:lease"),
    runs,
    run: (s) => run(s),
    async openSession() {
      return { run, serverPids: () => [], close: async () => {} };
    },
  };
}

const OPTIONS = { maxRuns: 300, runs: 2, marginMs: 50, simFirst: true } as const;

describe("shrinking a long real run", () => {
  it("the input's run ends at its violation, and the result is cut short after it", async () => {
    const real = simulatedRedisLease(() => true);
    const r = await shrinkFailing(real, longRun, OPTIONS);
    expect(r.kind).toBe("shrunk");
    if (r.kind !== "shrunk") return;
    // The input's run: on the pool, stopped long before the horizon.
    const input = real.runs[0]!;
    expect(input).toMatchObject({ horizonMs: HORIZON_MS, stoppable: true });
    expect(input.lastOpMs).toBeLessThan(HORIZON_MS / 4);
    // The result ends soon after its violation: every real run after the input was of the cut.
    const horizon = r.schedule.options.horizonMs;
    expect(horizon).toBeLessThan(HORIZON_MS / 4);
    expect(real.runs.slice(1).map((x) => x.horizonMs)).toEqual([horizon, horizon]);
    expect(r.note).toContain("shrunk in the simulator (");
    expect(r.note).toContain("runs) with timing margins ≥ 50 ms, then failed on 2 of 2 real runs");
    expect(violationKind(r.run.verdicts)).toBe("stale-write");
    // The cut still fails when run to its end, in the twin.
    const again = await target("sim:lease").run({ ...r.schedule, target: "sim:lease" });
    expect(violationKind(checkOps(again.ops))).toBe("stale-write");
  });

  it("when the servers do not confirm the cut, the uncut result is confirmed instead", async () => {
    const real = simulatedRedisLease((s) => s.options.horizonMs === HORIZON_MS);
    const r = await shrinkFailing(real, longRun, OPTIONS);
    expect(r.kind).toBe("shrunk");
    if (r.kind !== "shrunk") return;
    expect(r.schedule.options.horizonMs).toBe(HORIZON_MS);
    const horizons = real.runs.slice(1).map((x) => x.horizonMs);
    // The cut: one passing run (two of two can no longer fail); then the uncut result, twice.
    expect(horizons[0]).toBeLessThan(HORIZON_MS);
    expect(horizons.slice(1, 3)).toEqual([HORIZON_MS, HORIZON_MS]);
    expect(r.note).toContain("shrunk in the simulator");
  });

  it("says when the twin's result has no margins: with --margin 0, the bare minimum", async () => {
    const r = await shrinkFailing(
      simulatedRedisLease(() => true),
      longRun,
      { ...OPTIONS, marginMs: 0 },
    );
    expect(r.kind).toBe("shrunk");
    if (r.kind === "shrunk")
      expect(r.note).toContain("runs) to the bare minimum (--margin 0), then failed on 2 of 2");
  });

  it("--time-limit is the whole shrink's: the twin's shrinking comes out of it, and the pass on real servers gets the rest", async () => {
    const unlimited = await shrinkFailing(
      simulatedRedisLease(() => true),
      longRun,
      OPTIONS,
    );
    expect(unlimited.kind === "shrunk" && unlimited.budgetExhausted).toBe(false);
    // 1 ms: the twin stops at once (the cut of what it has is still confirmed, twice).
    const real = simulatedRedisLease(() => true);
    const r = await shrinkFailing(real, longRun, { ...OPTIONS, timeLimitMs: 1 });
    expect(r.kind).toBe("shrunk");
    if (r.kind !== "shrunk") return;
    expect(r.budgetExhausted).toBe(true);
    expect(real.runs).toHaveLength(3);
  });

  it("a cut that fails only with more room after the violation gets it: twice, then four times, … the room", async () => {
    // A twin whose runs fail (the same failing history each time) only when they last at least `needs` ms.
    const failing = (await target("sim:lease").run({ ...longRun, target: "sim:lease" })).ops;
    const endMs = violationEndMs(failing, probeOf("stale-write", failing, checkOps(failing)).evidence!)!;
    const room = cutSlackMs(longRun);
    const needs = endMs + 5 * room;
    const twin: Target = {
      ...target("sim:lease"),
      run: async (s) => ({ ops: s.options.horizonMs >= needs ? failing : [], stats: {} }),
    };
    const cut = await cutInTwin(twin, { ...longRun, target: "sim:lease" }, "stale-write", 50, () => {});
    // Twice the room is too short, four times too, eight times is the first that fails.
    expect(cut?.options.horizonMs).toBe(Math.ceil(endMs + 8 * room));
    // Never a cut that would not shorten the run.
    const short = {
      ...longRun,
      target: "sim:lease",
      options: { ...longRun.options, horizonMs: Math.ceil(endMs + 7 * room) },
    };
    expect(await cutInTwin(twin, short, "stale-write", 50, () => {})).toBeNull();
  });
});
