/**
 * Cutting a failing run short just after its violation (cut-after-violation.ts), the first
 * step of shrinking on real servers: on hunting schedules (clients repeat until a long
 * horizon, faults all along), the cut schedule is shorter, keeps only faults that fired or
 * came due before the cut, and — the run being the same up to the cut — still shows the same
 * violation in the deterministic simulator.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { huntScheduleArb } from "../../src/generators/hunt.js";
import { runAndCheck } from "../../src/runner/execute.js";
import { probeOf, violationKind } from "../../src/runner/same-violation.js";
import { scheduleWeight } from "../../src/runner/schedule-size.js";
import {
  cutAfterTwinViolation,
  cutAfterViolation,
  cutSlackMs,
  violationEndMs,
} from "../../src/runner/shrink/cut-after-violation.js";
import { firedAtMs } from "../../src/runner/shrink/cycle-spans.js";
import type { Schedule } from "../../src/schedule/schedule.js";
import { target } from "./schedules.js";

const options = {
  lockName: "lock",
  horizonMs: 30_000,
  latencyMs: { min: 1, max: 5 },
  lossRate: 0,
  servers: 1,
  ttlMs: 500,
  callTimeoutMs: 200,
};

describe("cutAfterViolation", () => {
  for (const name of ["sim:lease", "sim:redlock", "sim:consensus"] as const) {
    it(`${name}: a failing hunt, cut after its violation, is smaller and fails the same way`, async () => {
      const t = target(name);
      const arb = huntScheduleArb({
        target: name,
        resource: "unfenced",
        options: { ...options, servers: name === "sim:lease" ? 1 : 3 },
        faults: { categories: ["pause", "clock"] },
      });
      let cuts = 0;
      for (const s of fc.sample(arb, { numRuns: 40, seed: 5 }) as Schedule[]) {
        const run = await runAndCheck(t, s);
        const kind = violationKind(run.verdicts);
        if (kind === null) continue;
        const evidence = probeOf(kind, run.ops, run.verdicts).evidence!;
        const cut = cutAfterViolation(s, evidence);
        const endMs = violationEndMs(run.ops, evidence)!;
        expect(endMs).toBeGreaterThan(0);
        if (cut === null) {
          // Only when the violation (plus room for clock jumps) comes near the end anyway.
          expect(endMs + cutSlackMs(s)).toBeGreaterThan(s.options.horizonMs / 4);
          continue;
        }
        cuts++;
        expect(cut.options.horizonMs).toBeLessThan(s.options.horizonMs);
        expect(cut.options.horizonMs).toBeGreaterThan(endMs);
        expect(scheduleWeight(cut)).toBeLessThan(scheduleWeight(s));
        for (const f of cut.faults) expect(firedAtMs(f, run.ops)).toBeLessThan(cut.options.horizonMs);
        const again = await runAndCheck(t, cut, [kind]);
        expect(violationKind(again.verdicts)).toBe(kind);
      }
      expect(cuts).toBeGreaterThan(5);
    });
  }

  it("leaves a run whose violation comes at its very end alone", () => {
    const s = fc.sample(
      huntScheduleArb({
        target: "sim:lease",
        resource: "unfenced",
        options,
        faults: { categories: ["pause"] },
      }),
      { numRuns: 1, seed: 1 },
    )[0]!;
    const late = [{ index: 0, time: (s.options.horizonMs - 10) * 1e6, process: 0, type: "ok", f: "write" }];
    const evidence = { ops: late as never, anomalies: [{ kind: "stale-write", ops: [0], explanation: "" }] };
    expect(cutAfterViolation(s, evidence)).toBeNull();
  });
});

describe("cutAfterTwinViolation", () => {
  const base: Schedule = {
    version: 1,
    target: "sim:lease",
    resource: "unfenced",
    seed: 1,
    options,
    clients: [
      { id: 0, cycles: [{ thinkMs: 0, holdMs: 200, writes: 2 }] },
      { id: 1, cycles: [{ thinkMs: 100, holdMs: 100, writes: 1 }], repeat: true },
    ],
    faults: [],
  };
  /** A violation whose last op completed at 2,000 ms. */
  const at2s = {
    ops: [{ index: 0, time: 2_000 * 1e6, process: 0, type: "ok", f: "write" }] as never,
    anomalies: [{ kind: "stale-write" as const, ops: [0], explanation: "" }],
  };
  const room = 2 * cutSlackMs(base);
  const horizonWith = (faults: Schedule["faults"]) =>
    cutAfterTwinViolation({ ...base, faults }, at2s)?.options.horizonMs;

  it("leaves twice the room after the violation, or as many times as asked", () => {
    expect(horizonWith([])).toBe(2_000 + room);
    expect(cutAfterTwinViolation(base, at2s, 4)?.options.horizonMs).toBe(2_000 + 2 * room);
    expect(cutAfterViolation(base, at2s)?.options.horizonMs).toBe(2_000 + cutSlackMs(base));
  });

  it("waits for the faults begun by then to end: a later clock jump, a pause's end; not a crash with no restart", () => {
    expect(horizonWith([{ kind: "clock-jump", node: "server:0", at: 2_600, deltaMs: 300 }])).toBe(
      2_600 + room,
    );
    expect(horizonWith([{ kind: "pause", node: "client:0", at: 1_500, durationMs: 1_400 }])).toBe(
      2_900 + room,
    );
    expect(horizonWith([{ kind: "crash", node: "server:0", at: 1_800, restartAfterMs: null }])).toBe(
      2_000 + room,
    );
    // Begun after the room: not waited for, and dropped.
    const late = cutAfterTwinViolation(
      { ...base, faults: [{ kind: "pause", node: "client:0", at: 2_000 + room + 500, durationMs: 100 }] },
      at2s,
    );
    expect(late?.options.horizonMs).toBe(2_000 + room);
    expect(late?.faults).toEqual([]);
  });

  it("leaves a schedule alone when the cut would not shorten it", () => {
    expect(
      cutAfterTwinViolation({ ...base, options: { ...options, horizonMs: 2_000 + room } }, at2s),
    ).toBeNull();
  });
});
