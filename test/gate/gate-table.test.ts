/**
 * The gate's console table: where each target ran, and a note under a target whose library ended
 * its own clients.
 */
import { describe, expect, it } from "vitest";
import { colorsFor } from "../../src/report/colors.js";
import type { GateReport, TargetResult } from "../../src/report/gate-result.js";
import { formatGateReport } from "../../src/report/gate-table.js";
import { ranOn } from "../../src/runner/gate/ran-on.js";

const plain = colorsFor({ isTTY: false }, { NO_COLOR: "1" });

const target = (name: string, extra: Partial<TargetResult> = {}): TargetResult => ({
  kind: "target",
  name,
  target: name,
  resource: "unfenced",
  expect: "safe",
  seed: 1,
  faults: ["partition"],
  runs: 2,
  violations: 0,
  interrupted: false,
  elapsedMs: 20_000,
  met: true,
  ...extra,
});

const report = (results: TargetResult[]): GateReport => ({
  version: 1,
  shard: null,
  results,
  ok: true,
  elapsedMs: 20_000,
});

describe("ranOn", () => {
  it("is the simulator for a deterministic target, else the servers where the gate places them", () => {
    expect(ranOn({ deterministic: true }, { cluster: "docker" })).toBe("simulator");
    expect(ranOn({ deterministic: false }, {})).toBe("servers");
    expect(ranOn({ deterministic: false }, { cluster: "process" })).toBe("servers");
    expect(ranOn({ deterministic: false }, { cluster: "docker" })).toBe("docker");
  });
});

describe("formatGateReport", () => {
  it("says where each target ran, and a dash where that is not known", () => {
    const lines = formatGateReport(
      report([
        target("sim:lease", { ranOn: "simulator" }),
        target("module:./a.mjs", { ranOn: "servers" }),
        target("etcd:lock", { ranOn: "docker" }),
        target("old"),
      ]),
      plain,
    );
    expect(lines.slice(1, 6)).toEqual([
      "target          on         expect  runs  violations  time  result",
      "sim:lease       simulator  safe       2           0   20s  ✓ met",
      "module:./a.mjs  servers    safe       2           0   20s  ✓ met",
      "etcd:lock       docker     safe       2           0   20s  ✓ met",
      "old             –          safe       2           0   20s  ✓ met",
    ]);
  });

  it("notes a target whose library ended client processes, with the first warning's first line", () => {
    const first =
      "client:0: the library threw outside a call; the client process exits: Error: boom\n    at x";
    const lines = formatGateReport(
      report([
        target("module:./a.mjs", { libraryCrashes: { runs: 2, clients: 3, first } }),
        target("redis:lease"),
      ]),
      plain,
    );
    const notes = lines.filter((l) => l.startsWith("! "));
    expect(notes).toEqual([
      "! module:./a.mjs: your library ended 3 client processes in 2 of 2 runs (it threw outside a call); the rest of their workload was not tested. First: client:0: the library threw outside a call; the client process exits: Error: boom",
    ]);
    expect(lines.at(-1)).toMatch(/^gate passed: 2 of 2 expectations met/);
  });

  it("has no note when no library crashed", () => {
    expect(formatGateReport(report([target("redis:lease")]), plain).some((l) => l.startsWith("! "))).toBe(
      false,
    );
  });
});
