/**
 * Replaying a saved schedule: run it again on its target (or another one, e.g. the real
 * world's version of a simulated target) and check the history. `twice` runs it a second
 * time and compares the two histories byte for byte — a determinism check for the simulator.
 * `runs` runs it that many times on real servers (cleaned between runs) and counts the runs
 * that show a violation: a run on real servers is not deterministic, so one replay that
 * passes says little about a counterexample, or about the fix it was meant to catch.
 */
import { combineValidity, type Validity } from "../checkers/verdict.js";
import { serializeOp } from "../history/jsonl.js";
import { err, type InputError, ok, type Result } from "../result.js";
import type { Schedule } from "../schedule/schedule.js";
import { findTarget } from "../targets/index.js";
import type { ServerPlacement } from "../targets/target.js";
import { type CheckedRun, runAndCheck, runAndCheckOn } from "./execute.js";
import { type ViolationKind, violationKind } from "./same-violation.js";
import { openSessionPool, sessionOptionsFor } from "./session-pool.js";

export interface ReplayOptions extends ServerPlacement {
  /** Run on this target instead of the schedule's own. */
  target?: string;
  twice?: boolean;
  /** Real targets: how many times to run it (default 1); not with `twice`. */
  runs?: number;
  /** Called after each run with its number (1-based) and what it showed. */
  onRun?: (n: number, outcome: RunOutcome) => void;
}

/** What one of the runs showed: every checker's verdicts combined, and its safety violation (the first in checker order), if any. */
export interface RunOutcome {
  valid: Validity;
  violation: ViolationKind | null;
}

export interface HistoryDifference {
  /** First line (0-based op position) where the two histories differ. */
  index: number;
  first: string | null;
  second: string | null;
}

export interface ReplayResult {
  /** The first run that showed a violation; with none, the last run. */
  run: CheckedRun;
  /** With `twice`: null if both runs recorded identical histories, else where they differ. */
  difference: HistoryDifference | null;
  /** Every run's outcome, in order (one without `runs`; both of `twice`). */
  outcomes: RunOutcome[];
}

/** Where two histories first differ, serialized as JSONL lines; null if identical. */
export function firstDifference(a: CheckedRun["ops"], b: CheckedRun["ops"]): HistoryDifference | null {
  const n = Math.max(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a[i] === undefined ? null : serializeOp(a[i]!);
    const y = b[i] === undefined ? null : serializeOp(b[i]!);
    if (x !== y) return { index: i, first: x, second: y };
  }
  return null;
}

export async function replaySchedule(
  schedule: Schedule,
  o: ReplayOptions = {},
): Promise<Result<ReplayResult, InputError>> {
  const name = o.target ?? schedule.target;
  const target = findTarget(name, o.target === undefined ? "target" : "--target");
  if (!target.ok) return err(target.error);
  const s = name === schedule.target ? schedule : { ...schedule, target: name };
  if (target.value.deterministic && (o.cluster ?? "process") !== "process")
    return err({
      field: "--cluster",
      message: `only for real targets (redis:…, etcd:…); ${name} runs in the simulator`,
    });
  const runs = o.runs ?? 1;
  if (!(Number.isInteger(runs) && runs >= 1))
    return err({ field: "--runs", message: `must be a whole number ≥ 1, got ${runs}` });
  if (runs > 1 && o.twice === true)
    return err({
      field: "--runs",
      message: "not with --twice (--twice compares two histories of the simulator)",
    });
  if (runs > 1 && target.value.deterministic)
    return err({
      field: "--runs",
      message: `only for real targets: ${name} runs in the simulator, which replays a schedule the same way every time (--twice checks that)`,
    });
  // Real servers (local processes or containers) start once, for every run; each run gets
  // them clean (real-session.ts).
  const opened = target.value.deterministic
    ? ok(null)
    : await openSessionPool(target.value, sessionOptionsFor(s, o), 1);
  if (!opened.ok) return err({ message: opened.error });
  const pool = opened.value;
  const outcomes: RunOutcome[] = [];
  const once = async (): Promise<CheckedRun> => {
    const run = await (pool === null
      ? runAndCheck(target.value, s)
      : pool.use((session) => runAndCheckOn(session, s)));
    const outcome = {
      valid: combineValidity(run.verdicts.map((v) => v.valid)),
      violation: violationKind(run.verdicts),
    };
    outcomes.push(outcome);
    o.onRun?.(outcomes.length, outcome);
    return run;
  };
  try {
    let shown = await once();
    if (o.twice === true) {
      const again = await once();
      return ok({ run: shown, difference: firstDifference(shown.ops, again.ops), outcomes });
    }
    for (let n = 2; n <= runs; n++) {
      const run = await once();
      // The first run that failed is the one shown; until one does, the latest.
      if (violationKind(shown.verdicts) === null) shown = run;
    }
    return ok({ run: shown, difference: null, outcomes });
  } finally {
    await pool?.close();
  }
}
