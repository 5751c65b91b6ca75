/**
 * `fuzz`: property-based search for a schedule that makes a target violate safety.
 *
 * fast-check generates schedules from the seed (`scheduleArb`), runs each on the target and
 * checks it; the property is "no safety checker says false". On the first violation,
 * fast-check's integrated shrinking reduces the schedule, then `shrinkSchedule` makes a
 * final greedy pass (it knows moves fast-check's structural shrinking cannot make, such as
 * dropping a client together with the faults aimed at it, or keeping only the clients and
 * cycles the violation's anomaly involves). Both keep the kind of the violation first found
 * (a stale write stays a stale write). The same seed and options give the same sequence of
 * schedules, so the same runs and the same counterexample.
 */
import fc from "fast-check";
import { SAFETY_CHECKERS } from "../../checkers/index.js";
import type { Verdict } from "../../checkers/verdict.js";
import type { FaultBounds, FaultCategory, WorkloadBounds } from "../../generators/bounds.js";
import { scheduleArb } from "../../generators/schedule.js";
import type { Op } from "../history/op.js";
import type { ResourceMode, Schedule, ScheduleOptions } from "../schedule/schedule.js";
import type { Target } from "../targets/target.js";
import { runAndCheck } from "./execute.js";
import { probeViolation, type ViolationKind, violationKind } from "./same-violation.js";
import { type ShrinkBudget, shrinkSchedule } from "./shrink.js";

export interface FuzzOptions {
  target: Target;
  /** Default: the target's first (default) resource mode. */
  resource?: ResourceMode;
  seed: number;
  /** Number of schedules to try; default 1000 (unbounded when only a time limit is set). */
  runs?: number;
  /** Stop searching after this long (ms). */
  timeLimitMs?: number;
  faults: readonly FaultCategory[];
  /** Overrides of the target's default world options (e.g. a shorter horizon). */
  options?: Partial<ScheduleOptions>;
  workload?: Partial<WorkloadBounds>;
  faultBounds?: Partial<Omit<FaultBounds, "categories">>;
  /**
   * Budget of fast-check's integrated shrinking (runs and ms; default 600 runs / 2 s). Once it
   * is spent, further candidates count as passing, which ends fast-check's shrinking at the
   * smallest failure found so far.
   */
  fcShrink?: ShrinkBudget;
  /** Budget of the final greedy shrink pass; false skips it. Default 600 runs / 3 s. */
  shrink?: ShrinkBudget | false;
  /** Called after every run, while searching and while shrinking. */
  onProgress?: (p: FuzzProgress) => void;
  /** Real targets: where their servers run (fuzz-real.ts). */
  real?: { cluster?: "process" | "docker"; docker?: Record<string, unknown> };
}

export interface FuzzProgress {
  phase: "search" | "shrink";
  /** Schedules tried while searching. */
  runs: number;
  /** Runs spent shrinking so far. */
  shrinkRuns: number;
  violations: number;
}

export interface FuzzCounterexample {
  /** 1-based number of the search run that first failed. */
  foundAtRun: number;
  /** The schedule as first found. */
  original: Schedule;
  /** The minimal schedule, its history and verdicts. */
  schedule: Schedule;
  ops: Op[];
  verdicts: Verdict[];
  /** Shrink steps accepted by fast-check and by the final pass, and runs spent on them. */
  fcShrinks: number;
  passSteps: number;
  shrinkRuns: number;
  shrinkMs: number;
}

export interface FuzzResult {
  target: string;
  resource: ResourceMode;
  seed: number;
  /** Schedules tried while searching (not counting shrinking). */
  runs: number;
  elapsedMs: number;
  /** True if the time limit stopped the search. */
  interrupted: boolean;
  counterexample: FuzzCounterexample | null;
  /** Set if lockcheck itself failed (a simulator or target bug), with the schedule that did it. */
  error: { message: string; schedule: Schedule | null } | null;
}

const DEFAULT_RUNS = 1000;
const DEFAULT_FC_SHRINK: Required<ShrinkBudget> = { maxRuns: 600, timeLimitMs: 2000 };
const DEFAULT_SHRINK: ShrinkBudget = { maxRuns: 600, timeLimitMs: 3000 };

export function fuzzScheduleArb(o: FuzzOptions): fc.Arbitrary<Schedule> {
  const { target } = o;
  const faults: Partial<FaultBounds> & { categories: readonly FaultCategory[] } = {
    leader: target.hasLeader,
    ...o.faultBounds,
    categories: o.faults,
  };
  const arb = {
    target: target.name,
    resource: o.resource ?? target.resources[0],
    options: { ...target.defaults, ...o.options },
    faults,
  };
  return scheduleArb(o.workload === undefined ? arb : { ...arb, workload: o.workload });
}

export async function fuzz(o: FuzzOptions): Promise<FuzzResult> {
  // Real targets hunt with whole runs on servers they start once (fuzz-real.ts).
  if (o.target.openSession !== undefined) return (await import("./fuzz-real.js")).fuzzReal(o);
  const started = Date.now();
  const resource = o.resource ?? o.target.resources[0];
  let runs = 0;
  let shrinkRuns = 0;
  let foundAtRun = 0;
  let phase: FuzzProgress["phase"] = "search";
  let original: Schedule | null = null;
  const report = () => o.onProgress?.({ phase, runs, shrinkRuns, violations: foundAtRun > 0 ? 1 : 0 });

  const fcShrink = { ...DEFAULT_FC_SHRINK, ...o.fcShrink };
  let fcShrinkDeadline = Infinity;
  let foundAt = 0;
  // Once a violation is found, shrinking keeps its kind (see same-violation.ts).
  let kind = null as ViolationKind | null;
  const property = fc.asyncProperty(fuzzScheduleArb({ ...o, resource }), async (schedule) => {
    if (kind !== null) {
      if (shrinkRuns >= fcShrink.maxRuns || Date.now() >= fcShrinkDeadline) return true;
      shrinkRuns++;
      const bad = (await probeViolation(o.target, schedule, kind)).fails;
      report();
      return !bad;
    }
    runs++;
    const run = await runAndCheck(o.target, schedule, SAFETY_CHECKERS);
    kind = violationKind(run.verdicts);
    if (kind !== null) {
      phase = "shrink";
      foundAtRun = runs;
      original = schedule;
      foundAt = Date.now();
      fcShrinkDeadline = foundAt + fcShrink.timeLimitMs;
    }
    report();
    return kind === null;
  });
  const numRuns = o.runs ?? (o.timeLimitMs !== undefined ? Number.MAX_SAFE_INTEGER : DEFAULT_RUNS);
  const plugins = o.timeLimitMs !== undefined ? [fc.interruptAfterTimeLimit(o.timeLimitMs)] : [];
  const details = await fc.check<[Schedule]>(property, { seed: o.seed, numRuns, plugins });

  const base = { target: o.target.name, resource, seed: o.seed, interrupted: details.interrupted };
  if (!details.failed || details.counterexample === null) {
    return { ...base, runs, elapsedMs: Date.now() - started, counterexample: null, error: null };
  }
  const [fcMinimal] = details.counterexample;
  if (details.errorInstance !== null && foundAtRun === 0) {
    // No violation: the target threw (e.g. a simulator bug).
    return {
      ...base,
      runs,
      elapsedMs: Date.now() - started,
      counterexample: null,
      error: { message: describeError(details.errorInstance), schedule: fcMinimal },
    };
  }

  let minimal = fcMinimal;
  let passSteps = 0;
  if (o.shrink !== false && kind !== null) {
    const violation = kind;
    const probe = async (s: Schedule) => {
      shrinkRuns++;
      report();
      return probeViolation(o.target, s, violation);
    };
    // fast-check's minimal failed with this kind; its run aims the first candidates.
    const { evidence } = await probe(fcMinimal);
    const pass = await shrinkSchedule(fcMinimal, probe, o.shrink ?? DEFAULT_SHRINK, evidence);
    minimal = pass.schedule;
    passSteps = pass.steps;
  }
  const final = await runAndCheck(o.target, minimal);
  return {
    ...base,
    runs,
    elapsedMs: Date.now() - started,
    counterexample: {
      foundAtRun,
      original: original ?? fcMinimal,
      schedule: minimal,
      ops: final.ops,
      verdicts: final.verdicts,
      fcShrinks: details.numShrinks,
      passSteps,
      shrinkRuns,
      shrinkMs: Date.now() - foundAt,
    },
    error: null,
  };
}

function describeError(e: unknown): string {
  if (e instanceof Error) {
    const cause = e.cause instanceof Error ? `: ${e.cause.message}` : "";
    return `${e.message}${cause}`;
  }
  return String(e);
}
