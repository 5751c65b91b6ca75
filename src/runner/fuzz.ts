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
 *
 * In the simulator the final pass then gives the counterexample timing margins
 * (shrink-robust.ts) unless `marginMs` is false, so that it also fails on real servers. On a real-server target a
 * run takes seconds and may not repeat: fast-check's shrinking is skipped and the final pass
 * is shrink-real.ts (simulator twin first, then real runs that must fail repeatedly); the
 * counterexample's history is always one of a run that failed.
 */
import fc from "fast-check";
import { SAFETY_CHECKERS } from "../checkers/index.js";
import type { Verdict } from "../checkers/verdict.js";
import type { FaultBounds, FaultCategory, WorkloadBounds } from "../generators/bounds.js";
import { scheduleArb } from "../generators/schedule.js";
import { seedSequence } from "../generators/seed-sequence.js";
import type { Op } from "../history/op.js";
import type { ShrinkLog } from "../report/shrink-log.js";
import type { PartitionMode, ResourceMode, Schedule, ScheduleOptions } from "../schedule/schedule.js";
import type { ServerPlacement, Target } from "../targets/target.js";
import { runAndCheck } from "./execute.js";
import { probeViolation, type ViolationKind, violationKind } from "./same-violation.js";
import { DEFAULT_MARGIN_MS } from "./shrink/robust-failure.js";
import { type ShrinkBudget, shrinkSchedule } from "./shrink/shrink.js";
import { type FinishingStep, shrinkFoundOnRealServers } from "./shrink/shrink-real.js";
import { shrinkRobustly } from "./shrink/shrink-robust.js";

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
  /**
   * Timing margin (ms) a shrunk counterexample must keep (robust-failure.ts); false shrinks
   * to the bare minimum. Default DEFAULT_MARGIN_MS.
   */
  marginMs?: number | false;
  /** Real targets: runs per shrink candidate and how many must fail (default 2 of 2). */
  realRuns?: { runs: number; needed: number };
  /** Called after every run, while searching and while shrinking. */
  onProgress?: (p: FuzzProgress) => void;
  /**
   * Called once, when the search finds a violation and before shrinking starts, with the
   * failing run as found: what a caller saves so that an interrupted or crashed shrink loses
   * nothing. Shrinking waits for it.
   */
  onFound?: (found: FoundViolation) => Promise<void>;
  /**
   * Real targets: called (and waited for) each time shrinking keeps a smaller schedule that
   * failed on real servers, with one of its failing runs — the smallest failure so far, which
   * a caller saves so that an interrupted shrink keeps it (shrink-real.ts `onSmaller`).
   */
  onSmaller?: (s: Schedule, run: { ops: Op[]; verdicts: Verdict[] }, log: ShrinkLog) => Promise<void>;
  /**
   * Start at this 0-based run index of the seed's sequence (fast-check's replay path), as if
   * the runs before it had passed; `runs` then counts from here. Used by `fuzz --shard` and to
   * shrink a failure that workers found (src/runner/workers/).
   */
  startAt?: number;
  /** Real targets: where their servers run (fuzz-real.ts). */
  real?: ServerPlacement & {
    partitionMode?: PartitionMode;
    /** Search runs at once, each on servers of its own (default 1). */
    parallel?: number;
  };
}

/** A failing search run, as found (before any shrinking). */
export interface FoundViolation {
  /** 1-based number of the search run. */
  foundAtRun: number;
  schedule: Schedule;
  ops: Op[];
  verdicts: Verdict[];
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
  /**
   * How the final pass went: `margins` (shrunk keeping timing margins), `exact` (to the bare
   * minimum), `real` (confirmed on real servers), `not-kept` (on real servers no smaller
   * schedule failed again: `schedule` is the one found, with its failing run), `off`.
   */
  shrink: "margins" | "exact" | "real" | "not-kept" | "off";
  /** Real targets: shrinking on real servers stopped at its budget, not at a minimum. */
  budgetExhausted?: boolean;
  /** Real targets: the last steps of shrinking that made a candidate, and how each went. */
  finishing?: FinishingStep[];
  /** Real targets: every candidate shrinking ran on real servers (report/shrink-log.ts). */
  shrinkLog?: ShrinkLog;
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
  /** Real targets: runs in which your library ended client processes, if any did. */
  libraryCrashes?: LibraryCrashes;
}

/** Client processes a library ended by throwing outside a call, over a real campaign's search. */
export interface LibraryCrashes {
  /** Runs in which it happened, and client processes it ended in all. */
  runs: number;
  clients: number;
  /** The first one's warning: "client:N: the library threw outside a call; …". */
  first: string;
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
    renews: target.renews === true,
  };
  return scheduleArb(o.workload === undefined ? arb : { ...arb, workload: o.workload });
}

export async function fuzz(o: FuzzOptions): Promise<FuzzResult> {
  // Real targets hunt with whole runs on servers they start once (fuzz-real.ts).
  if (o.target.openSession !== undefined) return (await import("./fuzz-real.js")).fuzzReal(o);
  const started = Date.now();
  const resource = o.resource ?? o.target.resources[0];
  let runs = o.startAt ?? 0;
  let shrinkRuns = 0;
  let foundAtRun = 0;
  let phase: FuzzProgress["phase"] = "search";
  let original: Schedule | null = null;
  let foundRun = null as { ops: Op[]; verdicts: Verdict[] } | null;
  const margin = o.marginMs === false ? null : (o.marginMs ?? DEFAULT_MARGIN_MS);
  const report = () => o.onProgress?.({ phase, runs, shrinkRuns, violations: foundAtRun > 0 ? 1 : 0 });

  const fcShrink = { ...DEFAULT_FC_SHRINK, ...o.fcShrink };
  let fcShrinkDeadline = Infinity;
  let foundAt = 0;
  // Once a violation is found, shrinking keeps its kind (see same-violation.ts).
  let kind = null as ViolationKind | null;
  const property = fc.asyncProperty(fuzzScheduleArb({ ...o, resource }), async (schedule) => {
    if (kind !== null) {
      // Real runs take seconds and do not repeat exactly: the final pass shrinks those.
      if (!o.target.deterministic) return true;
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
      foundRun = { ops: run.ops, verdicts: run.verdicts };
      report();
      await o.onFound?.({ foundAtRun, schedule, ops: run.ops, verdicts: run.verdicts });
      // Saving what was found does not eat into fast-check's shrinking time.
      foundAt = Date.now();
      fcShrinkDeadline = foundAt + fcShrink.timeLimitMs;
      return false;
    }
    report();
    return true;
  });
  const numRuns = o.runs ?? (o.timeLimitMs !== undefined ? Number.MAX_SAFE_INTEGER : DEFAULT_RUNS);
  const plugins = o.timeLimitMs !== undefined ? [fc.interruptAfterTimeLimit(o.timeLimitMs)] : [];
  const path = o.startAt === undefined ? {} : { path: String(o.startAt) };
  const details = await fc.check<[Schedule]>(property, {
    ...seedSequence<[Schedule]>(),
    seed: o.seed,
    numRuns,
    plugins,
    ...path,
  });

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
  let how: FuzzCounterexample["shrink"] = "off";
  let finishing: FinishingStep[] = [];
  let shrinkLog: ShrinkLog | undefined;
  let final: { ops: Op[]; verdicts: Verdict[] } | null = null;
  if (o.shrink !== false && kind !== null && !o.target.deterministic && foundRun !== null) {
    const r = await shrinkFoundOnRealServers(
      o.target,
      { schedule: original ?? fcMinimal, ...foundRun },
      {
        kind,
        marginMs: margin ?? 0,
        ...(o.realRuns === undefined ? {} : o.realRuns),
        ...(o.shrink === undefined ? {} : { budget: o.shrink }),
        onRun: () => {
          shrinkRuns++;
          report();
        },
      },
    );
    ({ schedule: minimal, run: final, steps: passSteps, how, finishing, log: shrinkLog } = r);
  } else if (o.shrink !== false && kind !== null && o.target.deterministic) {
    const violation = kind;
    const onRun = () => {
      shrinkRuns++;
      report();
    };
    const probe = async (s: Schedule) => {
      onRun();
      return probeViolation(o.target, s, violation);
    };
    // fast-check's minimal failed with this kind; its run aims the first candidates.
    const { evidence } = await probe(fcMinimal);
    const budget = o.shrink ?? DEFAULT_SHRINK;
    const robust =
      margin === null
        ? null
        : await shrinkRobustly(o.target, fcMinimal, violation, margin, budget, evidence, onRun, [
            original ?? fcMinimal,
          ]);
    if (robust !== null) {
      minimal = robust.schedule;
      passSteps = robust.steps;
      how = robust.robust ? "margins" : "exact";
    } else {
      const pass = await shrinkSchedule(fcMinimal, probe, budget, evidence);
      minimal = pass.schedule;
      passSteps = pass.steps;
      how = "exact";
    }
  } else if (!o.target.deterministic && foundRun !== null) {
    // Unshrunk real failure: its own run, not a rerun that may pass.
    minimal = original ?? fcMinimal;
    final = foundRun;
  }
  final ??= await runAndCheck(o.target, minimal);
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
      shrink: how,
      ...(finishing.length === 0 ? {} : { finishing }),
      ...(shrinkLog === undefined ? {} : { shrinkLog }),
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
