/**
 * vitest integration: `import "lockcheck/vitest"` (in a test file or a setup file) adds
 *
 *   expect(await fuzz({ target: "module:./my-lock.js", runs: 300 })).toHaveNoViolations();
 *
 * which passes when the report (from `fuzz`, `run` or `check`) found no safety violation, and
 * otherwise fails with the minimal counterexample as a timeline and the command that replays
 * it. `lockcheckMatchers` is exported too, for `expect.extend` by hand.
 */
import { expect } from "vitest";
import type { CheckReport } from "./api/check.js";
import { counterexampleHeading } from "./api/counterexample-heading.js";
import type { FuzzReport } from "./api/fuzz.js";
import type { RunReport } from "./api/run.js";

type Report = FuzzReport | RunReport | CheckReport;

interface MatcherResult {
  pass: boolean;
  message: () => string;
}

function isReport(x: unknown): x is Report {
  return (
    typeof x === "object" &&
    x !== null &&
    ["fuzz", "run", "check"].includes((x as { kind?: string }).kind ?? "") &&
    typeof (x as { violation?: unknown }).violation === "boolean"
  );
}

function anomalyLines(r: Report): string[] {
  const verdicts = r.kind === "fuzz" ? (r.counterexample?.verdicts ?? []) : r.verdicts;
  return verdicts.flatMap((v) => v.anomalies.map((a) => `  ${v.checker}: ${a.kind}: ${a.explanation}`));
}

/** The failure message: what was found, the minimal counterexample, and how to replay it. */
export function describeViolation(r: Report): string {
  if (r.kind === "fuzz") {
    const ce = r.counterexample;
    if (ce === null)
      return `lockcheck found no violation in ${r.runs} runs of ${r.target} (${r.resource}), seed ${r.seed}`;
    return [
      `lockcheck found a violation in run ${ce.foundAtRun} of ${r.target} (${r.resource}), seed ${r.seed}.`,
      "",
      "anomalies:",
      ...anomalyLines(r),
      "",
      counterexampleHeading(ce.shrink, ce.budgetExhausted),
      ...ce.schedule.faults.map((f) => `  fault: ${JSON.stringify(f)}`),
      ...ce.timeline.map((l) => `  ${l}`),
      "",
      ce.dir === null ? "" : `saved: ${ce.dir}/ (open report.html for the timeline)`,
      `replay: ${ce.replay}`,
    ]
      .filter((l, i, all) => l !== "" || all[i - 1] !== "")
      .join("\n");
  }
  if (r.kind === "run") {
    return [
      `lockcheck found a violation running ${r.target}, seed ${r.schedule.seed}.`,
      "",
      "anomalies:",
      ...anomalyLines(r),
      "",
      ...r.timeline.map((l) => `  ${l}`),
    ].join("\n");
  }
  return [
    `lockcheck found a violation in ${r.file ?? "the history"} (${r.ops} ops).`,
    "",
    "anomalies:",
    ...anomalyLines(r),
  ].join("\n");
}

export const lockcheckMatchers = {
  toHaveNoViolations(received: unknown): MatcherResult {
    if (!isReport(received)) {
      return {
        pass: false,
        message: () => "toHaveNoViolations() expects what lockcheck's fuzz(), run() or check() returned",
      };
    }
    return {
      pass: !received.violation,
      message: () =>
        received.violation
          ? describeViolation(received)
          : `expected lockcheck to find a violation, but it found none${received.kind === "fuzz" ? ` in ${received.runs} runs (seed ${received.seed})` : ""}`,
    };
  },
};

expect.extend(lockcheckMatchers);

declare module "vitest" {
  // biome-ignore lint/suspicious/noExplicitAny: the declaration must match vitest's own, which defaults T to any
  interface Assertion<T = any> {
    /** Passes when lockcheck's fuzz/run/check report found no safety violation. */
    toHaveNoViolations(): void;
  }
  interface AsymmetricMatchersContaining {
    toHaveNoViolations(): void;
  }
}
