/**
 * A shrink on real servers ends within its time limit, its last steps included: the pass stops
 * early enough for them, judged by how long the runs so far took, and a last step whose runs
 * would end past the limit is left out and said to be, a last candidate before the replays of a
 * shrunk result (shrink-real.ts). "Real servers" here are
 * the simulator, each of whose runs moves a fake wall clock on by one second.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { finishingLine } from "../../src/api/finishing-steps.js";
import { lease, shrinkFoundOn } from "./fake-real-shrink.js";

const RUN_MS = 1000;

beforeEach(() => {
  vi.useFakeTimers({ toFake: ["Date"] });
});
afterEach(() => {
  vi.useRealTimers();
});

async function shrinkWithin(timeLimitMs: number) {
  let runs = 0;
  const started = Date.now();
  const r = await shrinkFoundOn(
    async (s) => {
      runs++;
      vi.setSystemTime(Date.now() + RUN_MS);
      return (await lease.run(s)).ops;
    },
    { timeLimitMs },
  );
  return { r, runs, tookMs: Date.now() - started };
}

describe("a shrink on real servers within its time limit", () => {
  it("with room for every last step, runs them all and ends within the limit", async () => {
    const { r, runs, tookMs } = await shrinkWithin(40_000);
    // Past the limit by at most the candidate in flight when the pass stopped (2 runs).
    expect(tookMs).toBeLessThanOrEqual(40_000 + 2 * RUN_MS);
    expect(runs).toBeGreaterThan(20);
    expect(r.finishing.some((f) => "skipped" in f)).toBe(false);
    expect(r.finishing.some((f) => f.step === "replays")).toBe(true);
    expect(r.failingRun).not.toBeNull();
  });

  it("never runs a last candidate at the cost of the fresh replays of a shrunk result", async () => {
    const CANDIDATE_STEPS = ["wider pauses", "start races settled", "faults aimed"];
    let checked = 0;
    for (let limit = 6_000; limit <= 20_000; limit += 1_000) {
      const { r } = await shrinkWithin(limit);
      if (r.steps === 0) continue;
      const ranCandidate = r.finishing.some((f) => CANDIDATE_STEPS.includes(f.step) && !("skipped" in f));
      const replaysSkipped = r.finishing.some((f) => f.step === "replays" && "skipped" in f);
      if (ranCandidate) checked++;
      expect(ranCandidate && replaysSkipped, `limit ${limit}: ${finishingLine(r.finishing)}`).toBe(false);
    }
    expect(checked).toBeGreaterThan(0);
  });

  it("with a tight limit, leaves out the last steps that would not end in time, and says so", async () => {
    const { r, tookMs } = await shrinkWithin(8_000);
    expect(tookMs).toBeLessThanOrEqual(8_000 + 2 * RUN_MS);
    const skipped = r.finishing.filter((f) => "skipped" in f);
    expect(skipped.length).toBeGreaterThan(0);
    expect(finishingLine(r.finishing)).toMatch(/no time left in the limit for: /);
    // What it keeps has failed on the servers.
    expect(r.failingRun).not.toBeNull();
  });
});
