/**
 * The progress a real run reports once a second (`lockcheck run` prints it): how many of the
 * schedule's faults have begun, clock jumps included though they are never "in effect", and
 * which faults are in effect now.
 */
import { describe, expect, it } from "vitest";
import type { RealProgress } from "../../src/real/run.js";
import { missingBinaries, schedule } from "./helpers.js";
import { expectNothingLeftAfterEach, runChecked } from "./run-helpers.js";

const missing = missingBinaries(["redis-server", "cc"]);
const track = expectNothingLeftAfterEach();

describe.skipIf(missing.length > 0)("progress of a real run", () => {
  it("counts the faults begun, a clock jump too, and names the pause in effect", async () => {
    const reports: RealProgress[] = [];
    const r = await runChecked(
      schedule(
        "redis:lease",
        "unfenced",
        { servers: 1, ttlMs: 500, horizonMs: 2600 },
        [
          { id: 0, cycles: [{ thinkMs: 0, holdMs: 100, writes: 1 }], repeat: true },
          { id: 1, cycles: [{ thinkMs: 50, holdMs: 100, writes: 1 }], repeat: true },
        ],
        [
          { kind: "clock-jump", node: "server:0", at: 100, deltaMs: 20 },
          { kind: "pause", node: "client:1", at: 150, durationMs: 1500 },
          // Due long after the run: never begins.
          { kind: "clock-jump", node: "server:0", at: 60_000, deltaMs: 20 },
        ],
      ),
      { onProgress: (p) => reports.push(p) },
    );
    track(r.runId);
    expect(reports.length).toBeGreaterThanOrEqual(2);
    expect(reports.every((p) => p.faults === 3)).toBe(true);
    const first = reports[0]!;
    expect(first.faultsBegun).toBe(2);
    expect(first.activeFaults).toEqual(["pause client:1"]);
    const last = reports.at(-1)!;
    expect(last.faultsBegun).toBe(2);
    expect(last.activeFaults).toEqual([]);
  }, 60_000);
});
