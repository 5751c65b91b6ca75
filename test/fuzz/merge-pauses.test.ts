/**
 * A chain of a client's pauses inside one call becomes one pause as long as the chain, and a
 * node's overlapping timed pauses one pause over their union (merge-pauses.ts): candidates
 * with fewer faults for the shrinker, tried early, and first each round on real servers.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { runAndCheck } from "../../src/runner/execute.js";
import { fuzzScheduleArb } from "../../src/runner/fuzz.js";
import { violationKind } from "../../src/runner/same-violation.js";
import {
  withChainedPausesMerged,
  withOverlappingPausesMerged,
  withPausesMerged,
} from "../../src/runner/shrink/merge-pauses.js";
import { shrinkCandidates } from "../../src/runner/shrink/shrink-candidates.js";
import type { Fault, Schedule } from "../../src/schedule/schedule.js";
import { pauseInAcquire, scheduleFor, target } from "./schedules.js";

const withFaults = (faults: Fault[]) =>
  scheduleFor("sim:lease", {
    resource: "unfenced",
    clients: [[{ thinkMs: 0, holdMs: 300, writes: 2 }], [{ thinkMs: 100, holdMs: 600, writes: 3 }]],
    faults,
  });

describe("merging a call's chained pauses", () => {
  it("the three pauses a real shrink left on one acquire become one, as long as their chain; other faults stay", () => {
    const timed: Fault = { kind: "pause", node: "server:0", at: 1964, durationMs: 810 };
    const s = withFaults([
      pauseInAcquire(56, 837, 1),
      timed,
      pauseInAcquire(0, 1182, 1),
      pauseInAcquire(0, 1483, 1),
    ]);
    // 0 → 1,182; the one due at 0 fires on resume: → 2,665; the one due at 56 then: → 3,502.
    expect(withChainedPausesMerged(s)?.faults).toEqual([timed, pauseInAcquire(0, 3502, 1)]);
  });

  it("pauses of a call that do not overlap, or of different calls, are left alone", () => {
    expect(
      withChainedPausesMerged(withFaults([pauseInAcquire(0, 100, 0), pauseInAcquire(200, 100, 0)])),
    ).toBeNull();
    expect(
      withChainedPausesMerged(withFaults([pauseInAcquire(0, 500, 0), pauseInAcquire(0, 500, 1)])),
    ).toBeNull();
    expect(withChainedPausesMerged(withFaults([pauseInAcquire(0, 500, 0)]))).toBeNull();
  });

  it("in the simulator the merged pause fails as the chain did, and the shrinker is offered it before dropping faults", async () => {
    // Two pauses of 600 ms chained in client 0's first acquire: frozen past its 1 s lease.
    const chain = withFaults([pauseInAcquire(0, 600, 0), pauseInAcquire(100, 600, 0)]);
    const merged = withChainedPausesMerged(chain)!;
    expect(merged.faults).toEqual([pauseInAcquire(0, 1200, 0)]);
    const lease = target("sim:lease");
    const kind = async (s: typeof chain) => violationKind((await runAndCheck(lease, s)).verdicts);
    expect(await kind(chain)).not.toBeNull();
    expect(await kind(merged)).toBe(await kind(chain));
    // After the candidates without a client, before those without a fault.
    const offered = [...shrinkCandidates(chain)].map((c) => JSON.stringify(c));
    const at = offered.indexOf(JSON.stringify(merged));
    const firstDrop = offered.indexOf(JSON.stringify({ ...chain, faults: [] }));
    expect(at).toBeGreaterThanOrEqual(0);
    expect(at).toBeLessThan(firstDrop);
  });
});

const pause = (node: string, at: number, durationMs: number): Fault =>
  ({ kind: "pause", node, at, durationMs }) as Fault;

describe("merging a node's overlapping timed pauses", () => {
  it("a pause inside another, and one that overlaps its end, become one pause over their union", () => {
    // The three pauses of client 0 a real shrink of a user's SET NX / DEL lock left.
    const other = pause("server:0", 5600, 500);
    const s = withFaults([
      pause("client:0", 5532, 2624),
      other,
      pause("client:0", 5632, 2000),
      pause("client:0", 6950, 2000),
    ]);
    expect(withOverlappingPausesMerged(s)?.faults).toEqual([pause("client:0", 5532, 3418), other]);
  });

  it("pauses that only touch, or of different nodes, are left alone", () => {
    expect(
      withOverlappingPausesMerged(withFaults([pause("client:0", 100, 200), pause("client:0", 300, 50)])),
    ).toBeNull();
    expect(
      withOverlappingPausesMerged(withFaults([pause("client:0", 100, 200), pause("client:1", 150, 50)])),
    ).toBeNull();
  });

  it("withPausesMerged does both merges at once", () => {
    const s = withFaults([
      pauseInAcquire(0, 600, 0),
      pauseInAcquire(100, 600, 0),
      pause("client:1", 0, 500),
      pause("client:1", 200, 500),
    ]);
    expect(withPausesMerged(s)?.faults).toEqual([pauseInAcquire(0, 1200, 0), pause("client:1", 0, 700)]);
    expect(withPausesMerged(withFaults([pause("client:1", 0, 500)]))).toBeNull();
  });

  it("in the simulator the merged schedule runs exactly as the original: the same client ops (property)", async () => {
    const lease = target("sim:lease");
    // Generated schedules, each with one more pause that overlaps one of their own timed pauses.
    const withOverlap = fuzzScheduleArb({ target: lease, resource: "unfenced", seed: 0, faults: ["pause"] })
      .filter((s) => s.faults.some((f) => f.kind === "pause"))
      .chain((s) => {
        const timed = s.faults.filter((f) => f.kind === "pause");
        return fc
          .record({
            i: fc.nat({ max: timed.length - 1 }),
            into: fc.double({ min: 0, max: 0.99, noNaN: true }),
            durationMs: fc.integer({ min: 1, max: 3000 }),
          })
          .map(({ i, into, durationMs }) => {
            const base = timed[i]!;
            const at = base.at + Math.floor(into * base.durationMs);
            return { ...s, faults: [...s.faults, pause(base.node, at, durationMs)] };
          });
      });
    // Every op but the nemesis's, without its index in the history (which counts those too).
    const clientOps = async (s: Schedule) =>
      (await runAndCheck(lease, s)).ops
        .filter((op) => op.process !== "nemesis")
        .map(({ index: _, ...op }) => op);
    let merges = 0;
    await fc.assert(
      fc.asyncProperty(withOverlap, async (s) => {
        const merged = withOverlappingPausesMerged(s);
        expect(merged).not.toBeNull();
        expect(merged!.faults.length).toBeLessThan(s.faults.length);
        merges++;
        expect(await clientOps(merged!)).toEqual(await clientOps(s));
      }),
      { numRuns: 60, seed: 5 },
    );
    expect(merges).toBe(60);
  });
});
