/**
 * The last step of a shrink on real servers: the result is replayed on fresh runs, and when it
 * fails again in fewer than half of them, the schedules kept before it are tried, latest first
 * (shrink-real.ts). "Real servers" here are the simulator with a streak of luck: the first
 * two-client schedule that fails fails on its first two runs, and every two-client run after
 * those passes — a smaller schedule kept because its two runs won a race that replays lose.
 */
import { describe, expect, it } from "vitest";
import { probeViolation } from "../../src/runner/same-violation.js";
import type { Schedule } from "../../src/schedule/schedule.js";
import { lease, shrinkFoundOn } from "./fake-real-shrink.js";

describe("a shrink on real servers replays its result", () => {
  it("a smallest schedule kept by luck fails its replays: the larger one kept before it is the result", async () => {
    let luck = 2;
    const runOnServers = async (s: Schedule) => {
      const ops = (await lease.run(s)).ops;
      if (s.clients.length >= 3) return ops;
      const fails = (await probeViolation(lease, s, "stale-write")).fails;
      if (fails && luck > 0) {
        luck--;
        return ops;
      }
      // The race lost: the same schedule without its pause has no violation.
      return (await lease.run({ ...s, faults: [] })).ops;
    };
    const r = await shrinkFoundOn(runOnServers);
    const replays = r.finishing.filter((f) => f.step === "replays" || f.step === "stepped back");
    expect(replays[0]).toEqual({ step: "replays", kept: false, failed: 0, runs: 3 });
    expect(replays.at(-1)).toEqual({ step: "stepped back", kept: true, failed: 3, runs: 3 });
    expect(r.schedule.clients.length).toBe(3);
    expect(r.confirmed).toEqual({ failed: 3, runs: 3 });
    expect(r.failingRun).not.toBeNull();
  });

  it("a result that fails again in most replays stays the result", async () => {
    const r = await shrinkFoundOn(async (s) => (await lease.run(s)).ops);
    expect(r.schedule.clients.length).toBe(2);
    expect(r.finishing.filter((f) => f.step === "replays" || f.step === "stepped back")).toEqual([
      { step: "replays", kept: true, failed: 3, runs: 3 },
    ]);
  });
});
