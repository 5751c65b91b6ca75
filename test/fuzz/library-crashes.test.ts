/**
 * A real campaign counts the client processes your library ended (it threw outside a call) and
 * `lockcheck fuzz` says so: those runs tested less than they asked for. The session here is a
 * stand-in for real servers that returns empty histories with such crashes.
 */
import { describe, expect, it } from "vitest";
import { libraryCrashLines } from "../../src/cli/commands/fuzz.js";
import { colorsFor } from "../../src/report/colors.js";
import { fuzz } from "../../src/runner/fuzz.js";
import { findTarget } from "../../src/targets/index.js";
import type { Target, TargetRun } from "../../src/targets/target.js";

const crash = (client: number) =>
  `client:${client}: the library threw outside a call; the client process exits: Error: boom\n    at x`;

/** redis:lease, with a session whose run `i` (1-based) ended the clients `crashes[i]`. */
function targetWithCrashes(crashes: Record<number, number[]>): Target {
  const found = findTarget("redis:lease");
  if (!found.ok) throw new Error(found.error.message);
  let run = 0;
  return {
    ...found.value,
    async openSession() {
      return {
        async run(): Promise<TargetRun> {
          run++;
          const lines = (crashes[run] ?? []).map(crash);
          return { ops: [], stats: {}, ...(lines.length === 0 ? {} : { libraryCrashes: lines }) };
        },
        serverPids: () => [],
        close: async () => {},
      };
    },
  };
}

describe("library crashes in a real fuzz campaign", () => {
  it("counts the runs and client processes, and keeps the first one's warning", async () => {
    const target = targetWithCrashes({ 2: [1], 3: [0, 2] });
    const r = await fuzz({ target, faults: ["partition"], seed: 1, runs: 4 });
    expect(r.runs).toBe(4);
    expect(r.counterexample).toBeNull();
    expect(r.libraryCrashes).toEqual({ runs: 2, clients: 3, first: crash(1) });
  });

  it("says nothing when no library crashed", async () => {
    const r = await fuzz({ target: targetWithCrashes({}), faults: ["partition"], seed: 1, runs: 2 });
    expect(r.libraryCrashes).toBeUndefined();
  });

  it("prints how many runs and processes, and the first warning's first line", () => {
    const plain = colorsFor({ isTTY: false }, { NO_COLOR: "1" });
    expect(libraryCrashLines({ runs: 2, clients: 3, first: crash(1) }, 4, plain)).toEqual([
      "crashed by library in 2 of 4 runs (3 client processes): your library threw outside a call, which ends the process as it would end your service; the rest of those clients' workload was not tested",
      "  first: client:1: the library threw outside a call; the client process exits: Error: boom",
    ]);
    expect(libraryCrashLines(undefined, 4, plain)).toEqual([]);
  });
});
