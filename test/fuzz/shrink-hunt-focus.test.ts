/**
 * A real hunt's schedule (clients repeating their cycles for the whole run) shrinks to the two
 * cycles that clashed: the failing run's anomaly focuses the shrink even when the clash came in
 * a later pass over a client's plan. The "real servers" are the simulator
 * (fake-real-shrink.ts), with the real pass's budget of candidates.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { realHuntArb } from "../../src/runner/fuzz-real.js";
import { probeViolation } from "../../src/runner/same-violation.js";
import { scheduleSize } from "../../src/runner/schedule-size.js";
import type { Schedule } from "../../src/schedule/schedule.js";
import { shrinkOnSimServers } from "./fake-real-shrink.js";
import { target } from "./schedules.js";

const lease = target("sim:lease");

describe("shrinking a hunt's failure on real servers", () => {
  it("ends at the two clashing cycles, run once, within the real pass's budget", async () => {
    const hunts = fc.sample(realHuntArb(lease, ["pause"], 8000, 4, "unfenced"), { numRuns: 20, seed: 5 });
    let found: Schedule | null = null;
    for (const s of hunts) {
      const p = await probeViolation(lease, s, "stale-write");
      if (p.fails) {
        found = s;
        break;
      }
    }
    expect(found).not.toBeNull();
    const s = found!;
    expect(s.clients.every((c) => c.repeat === true)).toBe(true);
    const r = await shrinkOnSimServers(lease, s, {
      runs: 2,
      parallel: 2,
      budget: { maxRuns: 24, timeLimitMs: 600_000 },
      runOnServers: async (c) => (await lease.run(c)).ops,
    });
    expect(r.failingRun).not.toBeNull();
    const size = scheduleSize(r.schedule);
    expect(size).toMatchObject({ clients: 2, cycles: 2, repeating: 0, faults: 1 });
  }, 60_000);
});
