/**
 * The world-agnostic shrinker: its result still fails, is never larger than its input, and
 * is minimal for simple failure conditions; and on real simulator counterexamples.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { scheduleArb } from "../../src/generators/index.js";
import { runAndCheck, violates } from "../../src/runner/execute.js";
import { fuzz } from "../../src/runner/fuzz.js";
import { probeViolation, violationKind } from "../../src/runner/same-violation.js";
import { scheduleSize, scheduleWeight } from "../../src/runner/schedule-size.js";
import { shrinkSchedule } from "../../src/runner/shrink/shrink.js";
import { shrinkCandidates, smallerInts, withoutClient } from "../../src/runner/shrink/shrink-candidates.js";
import { type Schedule, scheduleSchema } from "../../src/schedule/schedule.js";
import { scheduleFor, target } from "./schedules.js";

const options = target("sim:redlock").defaults;
const arb = scheduleArb({
  target: "sim:redlock",
  resource: "unfenced",
  options,
  faults: { categories: ["pause", "clock", "partition", "crash", "delay"], maxFaults: 6 },
});

/** A synthetic failure: a pause of at least 700 ms and some cycle that writes. */
function syntheticFailure(s: Schedule): boolean {
  const longPause = s.faults.some(
    (f) => (f.kind === "pause" || f.kind === "pause-at") && f.durationMs >= 700,
  );
  return longPause && s.clients.some((c) => c.cycles.some((cy) => cy.writes > 0));
}

function expectNotLarger(after: Schedule, before: Schedule) {
  const a = scheduleSize(after);
  const b = scheduleSize(before);
  expect(a.clients).toBeLessThanOrEqual(b.clients);
  expect(a.cycles).toBeLessThanOrEqual(b.cycles);
  expect(a.faults).toBeLessThanOrEqual(b.faults);
  expect(a.writes).toBeLessThanOrEqual(b.writes);
  expect(scheduleWeight(after)).toBeLessThanOrEqual(scheduleWeight(before));
}

describe("shrinkSchedule", () => {
  it("keeps failing, never grows, and reaches the minimum of a simple condition", async () => {
    await fc.assert(
      fc.asyncProperty(arb.filter(syntheticFailure), async (s) => {
        const r = await shrinkSchedule(s, async (c) => syntheticFailure(c), { maxRuns: 5000 });
        expect(r.budgetExhausted).toBe(false);
        expect(syntheticFailure(r.schedule)).toBe(true);
        expect(scheduleSchema.safeParse(r.schedule).success).toBe(true);
        expectNotLarger(r.schedule, s);
        // Minimal: one write in all, one pause of exactly 700 ms, empty cycles otherwise; a
        // second client survives only if the pause is aimed at it (faults are not re-aimed).
        const size = scheduleSize(r.schedule);
        expect(size.writes).toBe(1);
        expect(size.cycles).toBe(size.clients);
        expect(size.workloadMs).toBe(0);
        expect(size.clients).toBeLessThanOrEqual(2);
        expect(r.schedule.faults).toHaveLength(1);
        expect(r.schedule.faults[0]).toMatchObject({ durationMs: 700 });
      }),
      { numRuns: 60, seed: 3 },
    );
  });

  it("never grows a schedule and never returns one that passes, whatever the condition", async () => {
    // Arbitrary (even non-monotone) failure conditions drawn from a hash of the candidate.
    await fc.assert(
      fc.asyncProperty(arb, fc.integer({ min: 1, max: 7 }), async (s, modulus) => {
        const fails = async (c: Schedule) => c === s || JSON.stringify(c).length % modulus === 0;
        const r = await shrinkSchedule(s, fails, { maxRuns: 200 });
        expect(await fails(r.schedule)).toBe(true);
        expectNotLarger(r.schedule, s);
        expect(r.runs).toBeLessThanOrEqual(200);
      }),
      { numRuns: 60, seed: 4 },
    );
  });

  it("respects its run budget", async () => {
    const s = fc.sample(arb.filter(syntheticFailure), { numRuns: 1, seed: 8 })[0]!;
    let calls = 0;
    const r = await shrinkSchedule(
      s,
      async (c) => {
        calls++;
        return syntheticFailure(c);
      },
      { maxRuns: 3 },
    );
    expect(calls).toBe(3);
    expect(r.runs).toBe(3);
    expect(r.budgetExhausted).toBe(true);
  });

  it("shrinks a simulator counterexample to one that still fails", async () => {
    const t = target("sim:lease");
    const found = await fuzz({
      target: t,
      resource: "unfenced",
      faults: ["pause"],
      seed: 5,
      runs: 1000,
      shrink: false,
      fcShrink: { maxRuns: 0 },
    });
    const original = found.counterexample!.schedule;
    expect(await violates(t, original)).toBe(true);
    const r = await shrinkSchedule(original, (c) => violates(t, c), { maxRuns: 1000 });
    expect(await violates(t, r.schedule)).toBe(true);
    expectNotLarger(r.schedule, original);
    expect(r.schedule.clients.length).toBeLessThanOrEqual(2);
    expect(r.schedule.faults).toHaveLength(1);
  });
});

describe("shrinking a simulator counterexample", () => {
  const t = target("sim:lease");
  const gcPause = {
    target: t,
    resource: "unfenced" as const,
    faults: ["pause" as const],
    faultBounds: { pauses: ["client" as const] },
    runs: 20_000,
  };

  it("with its history, keeps the same kind of violation and never grows", async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 1000 }), async (seed) => {
        const found = await fuzz({ ...gcPause, seed, shrink: false, fcShrink: { maxRuns: 0 } });
        const original = found.counterexample!.schedule;
        const kind = violationKind(found.counterexample!.verdicts)!;
        const start = await probeViolation(t, original, kind);
        expect(start.fails).toBe(true);
        const r = await shrinkSchedule(
          original,
          (c) => probeViolation(t, c, kind),
          { maxRuns: 400 },
          start.evidence,
        );
        expect((await probeViolation(t, r.schedule, kind)).fails).toBe(true);
        expectNotLarger(r.schedule, original);
      }),
      { numRuns: 8, seed: 12 },
    );
  });

  // Seeds whose GC-pause counterexample used to stay at 3 clients, 2 cycles a client or 2 faults.
  it.each([2, 4, 8, 15, 16, 20, 33])(
    "GC pause, seed %i: 2 clients, 4 lock operations, 1 fault, still a stale write",
    async (seed) => {
      const r = await fuzz({ ...gcPause, seed });
      const ce = r.counterexample!;
      const lockOps = ce.ops.filter((o) => (o.f === "acquire" || o.f === "release") && o.type === "invoke");
      expect(ce.schedule.clients.length).toBeLessThanOrEqual(2);
      expect(lockOps.length).toBeLessThanOrEqual(4);
      expect(ce.schedule.faults).toHaveLength(1);
      expect(violationKind(ce.verdicts)).toBe(violationKind((await runAndCheck(t, ce.original)).verdicts));
      expect(violationKind(ce.verdicts)).toBe("stale-write");
    },
  );
});

describe("violation kinds", () => {
  it("the first safety checker in SAFETY_CHECKERS order that says false names the kind", () => {
    const verdict = (checker: string, valid: boolean | "unknown") => ({
      checker,
      valid,
      anomalies: [],
      stats: {},
    });
    expect(violationKind([verdict("mutual-exclusion", false), verdict("stale-write", false)])).toBe(
      "stale-write",
    );
    expect(violationKind([verdict("stale-write", "unknown"), verdict("token-order", false)])).toBe(
      "token-order",
    );
    expect(violationKind([verdict("liveness", false), verdict("stale-write", true)])).toBeNull();
  });
});

describe("shrink candidates", () => {
  it("start every client earlier together, timed faults with them", () => {
    const s = scheduleFor("sim:lease", {
      resource: "unfenced",
      clients: [
        [
          { thinkMs: 100, holdMs: 1, writes: 1 },
          { thinkMs: 7, holdMs: 1, writes: 1 },
        ],
        [{ thinkMs: 130, holdMs: 1, writes: 1 }],
      ],
      faults: [
        { kind: "pause", node: "client:0", at: 150, durationMs: 5 },
        { kind: "pause-at", client: 1, checkpoint: "acquired", occurrence: 0, durationMs: 5 },
      ],
    });
    const earliest = [...shrinkCandidates(s)].find(
      (c) => c.clients[0]!.cycles[0]!.thinkMs === 0 && c.clients[1]!.cycles[0]!.thinkMs === 30,
    );
    expect(earliest).toBeDefined();
    expect(earliest!.clients[0]!.cycles[1]!.thinkMs).toBe(7);
    expect(earliest!.faults).toEqual([
      { kind: "pause", node: "client:0", at: 50, durationMs: 5 },
      { kind: "pause-at", client: 1, checkpoint: "acquired", occurrence: 0, durationMs: 5 },
    ]);
  });

  it("smallerInts: a binary search toward the minimum", () => {
    expect(smallerInts(100, 0)).toEqual([0, 50, 75, 88, 94, 97, 99]);
    expect(smallerInts(1, 1)).toEqual([]);
    expect(smallerInts(2, 1)).toEqual([1]);
  });

  it("dropping a client drops the faults aimed only at it and renumbers the rest", () => {
    const s = scheduleFor("sim:redlock", {
      resource: "unfenced",
      clients: [
        [{ thinkMs: 0, holdMs: 1, writes: 1 }],
        [{ thinkMs: 1, holdMs: 1, writes: 1 }],
        [{ thinkMs: 2, holdMs: 1, writes: 1 }],
      ],
      faults: [
        { kind: "pause", node: "client:1", at: 1, durationMs: 1 },
        { kind: "pause-at", client: 2, checkpoint: "acquired", occurrence: 0, durationMs: 1 },
        {
          kind: "partition",
          at: 0,
          durationMs: 1,
          a: ["client:1", "client:2"],
          b: ["server:0"],
          oneWay: false,
        },
        { kind: "delay", from: "client:1", to: "resource", at: 0, durationMs: 1, extraMs: 1 },
      ],
    });
    const r = withoutClient(s, 1);
    expect(r.clients.map((c) => [c.id, c.cycles[0]!.thinkMs])).toEqual([
      [0, 0],
      [1, 2],
    ]);
    expect(r.faults).toEqual([
      { kind: "pause-at", client: 1, checkpoint: "acquired", occurrence: 0, durationMs: 1 },
      { kind: "partition", at: 0, durationMs: 1, a: ["client:1"], b: ["server:0"], oneWay: false },
    ]);
    const kept = withoutClient(s, 1, false);
    expect(kept.clients.map((c) => c.id)).toEqual([0, 2]);
    expect(kept.faults[0]).toMatchObject({ kind: "pause-at", client: 2 });
  });
});
