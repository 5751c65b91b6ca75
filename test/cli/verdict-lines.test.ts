/** The verdict lines `run` and `replay` print: the first anomalies of each checker, the rest counted. */
import { describe, expect, it } from "vitest";
import type { Anomaly, Verdict } from "../../src/checkers/verdict.js";
import { formatVerdictLines, SHOWN_ANOMALIES } from "../../src/cli/commands/replay.js";
import { colorsFor } from "../../src/report/colors.js";

const plain = colorsFor({ isTTY: false }, { NO_COLOR: "1" });

const anomaly = (i: number): Anomaly => ({
  kind: "stale-write",
  ops: [i],
  explanation: `write ${i} was stale`,
});
const verdict = (checker: string, n: number): Verdict => ({
  checker,
  valid: n === 0,
  anomalies: Array.from({ length: n }, (_, i) => anomaly(i)),
  stats: {},
});

describe("formatVerdictLines", () => {
  it("prints every anomaly of a checker that has at most SHOWN_ANOMALIES", () => {
    const lines = formatVerdictLines(
      [verdict("stale-write", SHOWN_ANOMALIES), verdict("liveness", 0)],
      plain,
    );
    expect(lines).toEqual([
      "stale-write        INVALID",
      ...Array.from({ length: SHOWN_ANOMALIES }, (_, i) => `  stale-write: write ${i} was stale`),
      "liveness           valid",
    ]);
  });

  it("prints the first ones of a longer list and counts the rest, saying where all are", () => {
    const n = SHOWN_ANOMALIES + 20;
    const lines = formatVerdictLines([verdict("stale-write", n)], plain, "out/verdict.json");
    expect(lines.filter((l) => l.startsWith("  stale-write: "))).toHaveLength(SHOWN_ANOMALIES);
    expect(lines[1]).toBe("  stale-write: write 0 was stale");
    expect(lines.at(-1)).toBe(`  … and 20 more (all ${n} in out/verdict.json)`);
  });
});
