/**
 * A chain of a client's pauses inside one call becomes one pause as long as the chain
 * (merge-pauses.ts): a candidate with fewer faults for the shrinker, tried early, and first
 * each round on real servers.
 */
import { describe, expect, it } from "vitest";
import { runAndCheck } from "../../src/runner/execute.js";
import { violationKind } from "../../src/runner/same-violation.js";
import { withChainedPausesMerged } from "../../src/runner/shrink/merge-pauses.js";
import { shrinkCandidates } from "../../src/runner/shrink/shrink-candidates.js";
import type { Fault } from "../../src/schedule/schedule.js";
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
