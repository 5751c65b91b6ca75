/**
 * What `lockcheck fuzz` says about shrinking: when no smaller schedule failed (common on real
 * servers, where candidates seldom fail twice), it says the schedule was kept, not "shrunk
 * from N to N".
 */
import { describe, expect, it } from "vitest";
import { type FuzzFlags, shrinkLines } from "../../src/cli/commands/fuzz.js";
import { colorsFor } from "../../src/report/colors.js";
import type { FuzzCounterexample } from "../../src/runner/fuzz.js";
import { sizeOf as size } from "./schedule-sizes.js";

const plain = colorsFor({ isTTY: false }, {});
const flags = { margin: 50 } as FuzzFlags;
const ce = (shrink: FuzzCounterexample["shrink"]) =>
  ({ shrink, shrinkMs: 12_300, shrinkRuns: 7 }) as FuzzCounterexample;

describe("fuzz's shrink line", () => {
  it("says 'no smaller schedule failed: kept' when the counts did not go down", () => {
    const [line] = shrinkLines(ce("real"), { original: size(3, 6, 8), minimal: size(3, 6, 8) }, flags, plain);
    expect(line).toBe(
      "no smaller schedule failed: kept 3 clients, 6 lock cycles, 8 faults in 12.3 s (7 runs), confirmed on real servers",
    );
  });

  it("says 'shrunk from … to …' when they did", () => {
    const [line] = shrinkLines(
      ce("margins"),
      { original: size(3, 6, 8), minimal: size(2, 2, 1) },
      flags,
      plain,
    );
    expect(line).toBe(
      "shrunk from 3 clients, 6 lock cycles, 8 faults to 2 clients, 2 lock cycles, 1 fault in 12.3 s (7 runs), keeping timing margins ≥ 50 ms",
    );
  });

  it("says how to shrink further when shrinking on real servers stopped at its budget", () => {
    const sizes = { original: size(3, 6, 8), minimal: size(2, 3, 2), dir: "lockcheck-out/redis-naive-1-1" };
    expect(shrinkLines({ ...ce("real"), budgetExhausted: true }, sizes, flags, plain)).toEqual([
      "shrunk from 3 clients, 6 lock cycles, 8 faults to 2 clients, 3 lock cycles, 2 faults in 12.3 s (7 runs), confirmed on real servers",
      "shrinking stopped at its budget, not at a minimum; to go on: lockcheck shrink lockcheck-out/redis-naive-1-1 --time-limit 5m (or give fuzz --shrink-time-limit 5m)",
    ]);
    expect(shrinkLines({ ...ce("real"), budgetExhausted: false }, sizes, flags, plain)).toHaveLength(1);
  });

  it("says which last steps on real servers made a candidate and whether each was kept", () => {
    const sizes = { original: size(3, 6, 8), minimal: size(2, 3, 1) };
    const finishing = [
      { step: "start races settled", kept: false, failed: 1, runs: 2 },
      { step: "faults aimed", kept: true, failed: 2, runs: 2 },
    ] as const;
    expect(shrinkLines({ ...ce("real"), finishing: [...finishing] }, sizes, flags, plain)).toEqual([
      "shrunk from 3 clients, 6 lock cycles, 8 faults to 2 clients, 3 lock cycles, 1 fault in 12.3 s (7 runs), confirmed on real servers",
      "last steps on real servers: start races settled (not kept: failed 1 of 2), timed faults aimed at checkpoints (kept: failed 2 of 2)",
    ]);
  });
});
