/**
 * Shrinking a failure of a real-server target (redis:*, etcd:*, a module's real target),
 * where one run takes seconds and the same schedule may fail on one run and pass on the next.
 *
 * 1. Simulator first: when the target has a simulator twin (the same LockAlgorithm as a
 *    deterministic target, `sim:<algorithm>`: redis:lease ↔ sim:lease, etcd:lock ↔
 *    sim:consensus, a user's module ↔ its sim target) and the twin fails on the schedule,
 *    shrink there with timing margins (shrink-robust.ts: thousands of runs in seconds), then
 *    confirm the result on real servers: first cut short just after its violation, when the
 *    cut still fails in the twin, so that its real runs and replays do not last to a long
 *    horizon; then as it is. On etcd, when the twin (whose leases end as late as
 *    etcd may end them) does not fail, the twin with leases ending as soon as etcd may is
 *    tried instead (`simTwinsOf`).
 * 2. Otherwise, or when the real servers do not confirm it, shrink on real servers: a
 *    candidate is kept only when it fails on `needed` of `runs` real runs; the schedule cut
 *    short just after its violation (cut-after-violation.ts: a failure 7 s into a 90 s run
 *    need not cost 90 s a candidate), and the schedule without the faults the last failing
 *    run shows never fired (fired-faults.ts), are tried first each round; at the end, pauses of at least 2 × TTL are tried (wider margins),
 *    then clients that start within a margin of each other started apart, in the order the
 *    last failing run granted them the lock (`withStartRacesSettled`), then timed pauses of
 *    clients, and timed partitions and delays of one client, aimed at the point of their work
 *    they hit in it (aim-faults.ts). Last, the result is replayed on fresh runs: of the many
 *    candidates tried, the smallest that failed `needed` of `runs` times is the likeliest to
 *    have done so by luck (a race its runs happened to win). If it fails again in fewer than
 *    half its replays, the schedules kept before it are replayed, latest first, and the first
 *    that does is the result (`REPLAYS`, `MAX_STEPS_BACK`).
 *
 * The result carries a real failing run of its schedule, or `failingRun: null` when no
 * schedule — not even the input — failed on `needed` of `runs` real runs: the caller must
 * then say the failure could not be kept, and save nothing.
 */
import { checkOps } from "../../checkers/index.js";
import type { Verdict } from "../../checkers/verdict.js";
import type { Op } from "../../history/op.js";
import type { ShrinkLog, ShrinkStep, ShrinkTrial, TrialRun, TwinSummary } from "../../report/shrink-log.js";
import type { Schedule } from "../../schedule/schedule.js";
import { findTarget } from "../../targets/index.js";
import { withEarliestLeaseEnd } from "../../targets/sim.js";
import type { Target } from "../../targets/target.js";
import { probeOf, probeViolation, type ViolationKind } from "../same-violation.js";
import { withFaultsAimed } from "./aim-faults.js";
import { cutAfterTwinViolation, cutAfterViolation } from "./cut-after-violation.js";
import { describeChange, trialSize } from "./describe-change.js";
import { withoutUnfiredFaults } from "./fired-faults.js";
import { withPausesMerged } from "./merge-pauses.js";
import { probeRobust, widenings, withStartRacesSettled } from "./robust-failure.js";
import {
  budgetLeft,
  type FailureEvidence,
  type ShrinkBudget,
  type ShrinkProbe,
  shrinkSchedule,
} from "./shrink.js";
import { warmFocusCandidates } from "./shrink-focus.js";
import { shrinkRobustly } from "./shrink-robust.js";

export interface RealShrinkOptions {
  kind: ViolationKind;
  /** Real runs per candidate (default 2) … */
  runs?: number;
  /** … of which this many must fail for the candidate to be kept (default: all of them). */
  needed?: number;
  /** Timing margin of the simulator phase (ms); 0: shrink there to the bare minimum. */
  marginMs: number;
  /** Budget of the real phase (candidates and wall-clock); default 200 candidates / 120 s. */
  budget?: ShrinkBudget;
  /** Budget of the simulator phase; default 1000 candidates / 20 s. */
  simBudget?: ShrinkBudget;
  /** Skip the simulator phase (default: use the twin when there is one). */
  simFirst?: boolean;
  /** The input's failing real run, if known: aims the first candidates. */
  evidence?: FailureEvidence;
  /** Called before every real run and every simulator candidate. */
  onRun?: (world: "sim" | "real") => void;
  /**
   * Called (and waited for) each time a smaller schedule has failed on real servers often
   * enough to be kept, with one of its failing runs: the smallest failure so far, for a caller
   * that keeps it on disk in case shrinking is interrupted; `log` is what the shrink ran so far.
   */
  onSmaller?: (s: Schedule, run: { ops: Op[]; verdicts: Verdict[] }, log: ShrinkLog) => Promise<void>;
  /**
   * Runs a candidate on real servers and returns its history; default `target.run` (fresh
   * servers per run). Real fuzz passes its sessions' servers, started once (fuzz-real.ts).
   * Called for up to `parallel` candidates at once; a run whose `abandoned` signal aborts may
   * end there (its candidate's answer is no longer needed).
   */
  runOnServers?: (s: Schedule, kind: ViolationKind, abandoned?: AbortSignal) => Promise<Op[]>;
  /**
   * Candidates run at once on real servers (default 2): a real run mostly waits (for leases
   * to run out, pauses to end), so two at a time take about as long as one.
   */
  parallel?: number;
}

export interface RealShrinkResult {
  schedule: Schedule;
  /** A real run of `schedule` that failed (with every checker's verdict); null: failure not kept. */
  failingRun: { ops: Op[]; verdicts: Verdict[] } | null;
  /** Where the result was shrunk: in the simulator twin (then confirmed), on real servers, or not at all. */
  shrunkIn: "sim" | "real" | "none";
  /**
   * Shrunk in the twin: whether the result fails there with every timing moved by the margin
   * (false when no version of it did, and it is the bare minimum; false when not shrunk there).
   */
  simMargins: boolean;
  /** Real runs of the final schedule that failed, of those made to confirm it. */
  confirmed: { failed: number; runs: number };
  simRuns: number;
  realRuns: number;
  steps: number;
  budgetExhausted: boolean;
  /** The last steps on real servers that made a candidate, in order, and how its runs went. */
  finishing: FinishingStep[];
  /** Every candidate run on real servers, in order (report/shrink-log.ts). */
  log: ShrinkLog;
}

/**
 * One of the last steps of shrinking on real servers: one candidate, kept if it failed often
 * enough; or a step left out because its runs would not have ended within the time limit.
 */
export type FinishingStep = FinishingRuns | FinishingSkipped;

export type FinishingStepName =
  | "wider pauses"
  | "start races settled"
  | "faults aimed"
  | "replays"
  | "stepped back";

export interface FinishingRuns {
  step: FinishingStepName;
  kept: boolean;
  /** Of its real runs, how many failed. */
  failed: number;
  runs: number;
}

export interface FinishingSkipped {
  step: FinishingStepName;
  skipped: "time limit";
}

const DEFAULT_BUDGET: ShrinkBudget = { maxRuns: 200, timeLimitMs: 120_000 };
/**
 * Of the time limit, the most the pass leaves for the last steps (three candidates of `runs`
 * runs and the replays, one run after another): with runs of 10 s they would take 90 s.
 */
const MOST_KEPT_FOR_LAST_STEPS = 0.4;
/** Runs whose durations say how long the next run will take: the latest, as candidates shrink. */
const TIMED_RUNS = 4;
/** Fresh real runs of the result of a shrink on real servers; it must fail in at least half. */
const REPLAYS = 3;
/** How many schedules kept before the smallest are replayed when it fails too seldom. */
const MAX_STEPS_BACK = 2;
const DEFAULT_SIM_BUDGET: ShrinkBudget = { maxRuns: 1000, timeLimitMs: 20_000 };
/** Candidates run at once on real servers unless `parallel` says otherwise. */
export const REAL_PARALLEL = 2;

/** The deterministic target that runs the same lock algorithm as `real`, if there is one. */
export function simTwinOf(real: Target): Target | undefined {
  if (real.deterministic) return undefined;
  const twin = findTarget(`sim:${real.algorithm.name}`);
  return twin.ok && twin.value.deterministic && twin.value.algorithm === real.algorithm
    ? twin.value
    : undefined;
}

/**
 * The simulated worlds a real failure is shrunk in first, in order: the twin, then (etcd) the
 * twin with leases ending as soon as a real etcd may end them. The twin ends them as late as
 * it may, so what it shrinks fails on a real etcd whatever the phase of etcd's expiry loop;
 * but a real failure that needed an early end does not fail in it at all.
 */
export function simTwinsOf(real: Target): Target[] {
  const twin = simTwinOf(real);
  if (twin === undefined) return [];
  const early = withEarliestLeaseEnd(twin);
  return early === null ? [twin] : [twin, early];
}

interface Repeated extends ShrinkProbe {
  failed: number;
  ran: number;
  ops: Op[] | null;
  /** Its line in the shrink log. */
  trial: ShrinkTrial;
}

/** How the shrink log names a candidate: the step that made it, and what it was made from (or words). */
interface LogAs {
  step: ShrinkStep;
  from: Schedule | string;
}

export async function shrinkOnRealServers(
  target: Target,
  schedule: Schedule,
  o: RealShrinkOptions,
): Promise<RealShrinkResult> {
  const runs = o.runs ?? 2;
  const needed = Math.min(o.needed ?? runs, runs);
  let realRuns = 0;
  let simRuns = 0;
  // The time limit is the whole shrink's: the twin's shrinking and its confirmation on real
  // servers come out of it, and the pass on real servers gets what is left.
  const budget = o.budget ?? DEFAULT_BUDGET;
  const started = Date.now();
  const deadline = budget.timeLimitMs === undefined ? Number.POSITIVE_INFINITY : started + budget.timeLimitMs;
  const runMs: number[] = [];
  /** The shrink log's lines so far (report/shrink-log.ts). */
  const trials: ShrinkTrial[] = [];
  /** How long the next real run will take, judged by the latest ones (0 before any). */
  const typicalRunMs = (): number => {
    const latest = runMs.slice(-TIMED_RUNS);
    return latest.length === 0 ? 0 : latest.reduce((a, b) => a + b, 0) / latest.length;
  };
  /** Whether `n` more runs, one after another, would end within the time limit. */
  const fits = (n: number): boolean => Date.now() + n * typicalRunMs() <= deadline;

  /**
   * Runs `s` up to `runs` times; stops as soon as `needed` failures are in, or out of reach.
   * With `all`, makes every run (a count of how often it fails) and it fails with `needed`.
   */
  const repeated = async (
    s: Schedule,
    log: LogAs,
    abandoned?: AbortSignal,
    want = { runs, needed, all: false },
  ): Promise<Repeated> => {
    const { runs, needed, all } = want;
    // In the log from the start: a batch's candidates in the order the pass took them.
    const trial: ShrinkTrial = {
      step: log.step,
      change: typeof log.from === "string" ? log.from : describeChange(log.from, s),
      size: trialSize(s),
      runs: [],
      kept: false,
      ms: 0,
    };
    trials.push(trial);
    let failed = 0;
    let ran = 0;
    let evidence: FailureEvidence | undefined;
    const outcomes: TrialRun[] = [];
    const repeatedStarted = Date.now();
    const goOn = () => all || (failed < needed && failed + (runs - ran) >= needed);
    const isAbandoned = () => abandoned?.aborted === true;
    while (ran < runs && goOn() && !isAbandoned()) {
      o.onRun?.("real");
      realRuns++;
      ran++;
      const runStarted = Date.now();
      const p =
        o.runOnServers === undefined
          ? await probeViolation(target, s, o.kind)
          : probeOfRun(o.kind, await o.runOnServers(s, o.kind, abandoned));
      // A run stopped because its answer is no longer needed says nothing of how long one takes.
      if (!isAbandoned()) runMs.push(Date.now() - runStarted);
      outcomes.push(p.fails ? "failed" : isAbandoned() ? "stopped" : "passed");
      if (p.fails) {
        failed++;
        evidence ??= p.evidence;
      }
    }
    const fails = failed >= needed;
    trial.runs = outcomes;
    trial.ms = Date.now() - repeatedStarted;
    // The pass keeps a candidate itself (`onKept`): of a batch's failing ones, the smallest.
    trial.kept = fails && log.step !== "pass";
    return {
      fails,
      ...(evidence === undefined ? {} : { evidence }),
      failed,
      ran,
      ops: evidence === undefined ? null : [...evidence.ops],
      trial,
    };
  };
  let twinSummary: TwinSummary | null = null;
  const log = (): ShrinkLog => ({
    target: target.name,
    runs,
    needed,
    parallel: o.parallel ?? REAL_PARALLEL,
    input: trialSize(schedule),
    twin: twinSummary,
    trials: [...trials],
  });
  const done = (
    s: Schedule,
    r: Repeated,
    shrunkIn: RealShrinkResult["shrunkIn"],
    steps: number,
    budgetExhausted: boolean,
    finishing: FinishingStep[] = [],
    simMargins = false,
  ): RealShrinkResult => ({
    schedule: s,
    failingRun: r.fails && r.ops !== null ? { ops: r.ops, verdicts: checkOps(r.ops) } : null,
    shrunkIn,
    simMargins,
    confirmed: { failed: r.failed, runs: r.ran },
    simRuns,
    realRuns,
    steps,
    budgetExhausted,
    finishing,
    log: log(),
  });

  // 1. In the simulator twin (simTwinsOf: the first that fails), with margins; then confirmed
  // on real servers.
  for (const twin of o.simFirst === false ? [] : simTwinsOf(target)) {
    const inSim = { ...schedule, target: twin.name };
    simRuns++;
    const exact = await probeViolation(twin, inSim, o.kind);
    if (exact.fails) {
      const onSimRun = () => {
        simRuns++;
        o.onRun?.("sim");
      };
      const simBudget = withinTime(o.simBudget ?? DEFAULT_SIM_BUDGET, budgetLeft(budget, started, 0));
      const r =
        o.marginMs > 0
          ? await shrinkRobustly(twin, inSim, o.kind, o.marginMs, simBudget, exact.evidence, onSimRun)
          : await shrinkSchedule(
              inSim,
              async (s) => {
                onSimRun();
                return probeViolation(twin, s, o.kind);
              },
              simBudget,
              exact.evidence,
            );
      // Without margins it seldom holds on real servers, but a confirmation costs little.
      // The twin's shrinking keeps the horizon (a longer run costs it nothing). On real
      // servers a client that repeats its cycles runs to the horizon in every replay of the
      // saved counterexample (a run on a pool's servers stops at its violation, a replay
      // does not), so the schedule cut short after its violation is confirmed first.
      const margins = "robust" in r && r.robust === true;
      const cut = await cutInTwin(twin, r.schedule, o.kind, margins ? o.marginMs : 0, onSimRun);
      twinSummary = { twin: twin.name, candidates: simRuns, size: trialSize(r.schedule) };
      for (const s of cut === null ? [r.schedule] : [cut, r.schedule]) {
        const shrunk = { ...s, target: schedule.target };
        const confirmed = await repeated(shrunk, {
          step: "twin confirmed",
          from: s === cut ? "the twin's result, cut short after its violation" : "the twin's result",
        });
        if (confirmed.fails) return done(shrunk, confirmed, "sim", r.steps, r.budgetExhausted, [], margins);
      }
      break;
    }
  }

  // 2. On real servers.
  let lastOps: readonly Op[] | null = o.evidence?.ops ?? null;
  const kept = new Map<string, Repeated>();
  /** The schedules kept, in the order they were. */
  const keptInOrder: Schedule[] = [];
  /** The pass's schedule so far: what its candidates are made from. */
  let current = schedule;
  const probe = async (s: Schedule, abandoned: AbortSignal): Promise<ShrinkProbe> => {
    const r = await repeated(s, { step: "pass", from: current }, abandoned);
    if (r.fails && r.ops !== null) kept.set(JSON.stringify(s), r);
    return r;
  };
  const onKept = async (s: Schedule): Promise<void> => {
    current = s;
    const r = kept.get(JSON.stringify(s));
    if (r?.ops == null) return;
    r.trial.kept = true;
    keptInOrder.push(s);
    lastOps = r.ops;
    await o.onSmaller?.(s, { ops: r.ops, verdicts: checkOps(r.ops) }, log());
  };
  const aim = function* (s: Schedule, ev: FailureEvidence | undefined): Generator<Schedule> {
    const ops = ev?.ops ?? lastOps;
    if (ops === null) return;
    if (ev !== undefined) {
      const cut = cutAfterViolation(s, ev);
      if (cut !== null && worthCutting(s, cut)) yield cut;
    }
    const pruned = withoutUnfiredFaults(s, ops);
    if (pruned !== null) yield pruned;
    const merged = withPausesMerged(s);
    if (merged !== null) yield merged;
    if (ev !== undefined) yield* warmFocusCandidates(s, ev);
  };
  // The pass stops in time for the last steps to run within the limit, as far as the runs so
  // far tell how long theirs will take.
  const lastStepRuns = 3 * runs + REPLAYS;
  const keptForLastSteps = (): number =>
    Math.min(lastStepRuns * typicalRunMs(), MOST_KEPT_FOR_LAST_STEPS * (budget.timeLimitMs ?? 0));
  const shrunk = await shrinkSchedule(schedule, probe, budgetLeft(budget, started, 0), o.evidence, aim, {
    parallel: o.parallel ?? REAL_PARALLEL,
    keep: "smallest",
    onKept,
    stopAt: () => deadline - keptForLastSteps(),
  });
  let result = shrunk.schedule;
  // Last, one candidate each (real runs are dear), kept if it still fails; tried even when the
  // budget ran out. `ops` is the last failing run of the schedule so far.
  const finishing: [FinishingStep["step"], (s: Schedule, ops: readonly Op[] | null) => Schedule | null][] = [
    // Wider pauses: the pass may have left a pause a hair above what fails.
    ["wider pauses", (s) => widenings(s, o.marginMs)[0] ?? null],
    // Clients that start together race for their first grant, and which process runs first
    // differs from run to run: the race settled as the failing run settled it, a replay need
    // not win it again.
    ["start races settled", (s, ops) => (ops === null ? null : withStartRacesSettled(s, ops, o.marginMs))],
    // Timed client pauses, partitions and delays aimed at the point of the client's work they
    // hit (aim-faults.ts): a replay whose clients run at another pace still pauses, cuts off or
    // delays the holder where it did.
    ["faults aimed", (s, ops) => (ops === null ? null : withFaultsAimed(s, ops))],
  ];
  let final: Repeated | null = null;
  const tried: FinishingStep[] = [];
  // A shrunk result is replayed last (below); a last candidate runs only if the replays still
  // fit after it: a result saved without them may be one that failed twice by luck.
  const replaysAfter = shrunk.steps > 0 ? REPLAYS : 0;
  for (const [step, make] of finishing) {
    const candidate = make(result, final?.ops ?? kept.get(JSON.stringify(result))?.ops ?? lastOps);
    if (candidate === null) continue;
    if (!fits(runs + replaysAfter)) {
      tried.push({ step, skipped: "time limit" });
      continue;
    }
    const r = await repeated(candidate, { step, from: result });
    tried.push({ step, kept: r.fails, failed: r.failed, runs: r.ran });
    if (r.fails) {
      result = candidate;
      final = r;
    }
  }
  // An accepted candidate already failed `needed` of `runs` times; the input has failed only
  // once so far (or the caller's evidence is all there is): confirm it.
  final ??=
    kept.get(JSON.stringify(result)) ??
    (await repeated(result, { step: "confirmed", from: "the schedule as it is" }));
  if (final.fails && shrunk.steps > 0 && !fits(REPLAYS))
    tried.push({ step: "replays", skipped: "time limit" });
  else if (final.fails && shrunk.steps > 0) {
    const replays = { runs: REPLAYS, needed: Math.ceil(REPLAYS / 2), all: true };
    const again = await repeated(
      result,
      { step: "replays", from: "the result again, on fresh runs" },
      undefined,
      replays,
    );
    tried.push({ step: "replays", kept: again.fails, failed: again.failed, runs: again.ran });
    const resultKey = JSON.stringify(result);
    const earlier = keptInOrder.filter((s) => JSON.stringify(s) !== resultKey).reverse();
    for (const s of again.fails ? [] : earlier.slice(0, MAX_STEPS_BACK)) {
      if (!fits(REPLAYS)) {
        tried.push({ step: "stepped back", skipped: "time limit" });
        break;
      }
      const r = await repeated(s, { step: "stepped back", from: result }, undefined, replays);
      tried.push({ step: "stepped back", kept: r.fails, failed: r.failed, runs: r.ran });
      if (r.fails) {
        result = s;
        final = r;
        break;
      }
    }
  }
  return done(result, final, shrunk.steps > 0 ? "real" : "none", shrunk.steps, shrunk.budgetExhausted, tried);
}

/**
 * Of the run cut short after its violation, at least this share of the horizon must go (or a
 * fault with it) for the cut to be a candidate on real servers: each later round's failing run
 * has its violation a little earlier or later, and a cut of 100 ms would cost a candidate (and,
 * first in its batch, win over a bigger shrink beside it) for nothing.
 */
const LEAST_CUT_SHARE = 0.1;

function worthCutting(s: Schedule, cut: Schedule): boolean {
  return (
    cut.faults.length < s.faults.length ||
    cut.options.horizonMs <= (1 - LEAST_CUT_SHARE) * s.options.horizonMs
  );
}

/** `budget` with no more time than `left` gives. */
function withinTime(budget: ShrinkBudget, left: ShrinkBudget): ShrinkBudget {
  if (left.timeLimitMs === undefined) return budget;
  return {
    ...budget,
    timeLimitMs: Math.min(budget.timeLimitMs ?? Number.POSITIVE_INFINITY, left.timeLimitMs),
  };
}

/**
 * `s` cut short after its violation in the twin (cut-after-violation.ts
 * `cutAfterTwinViolation`), if that shortens it and the cut still fails there: with margins
 * when the shrinking had them. A cut that does not is tried again with twice the room, and so
 * on while that still shortens the run: with margins, a moved timing may show its violation
 * only later in the run.
 */
export async function cutInTwin(
  twin: Target,
  s: Schedule,
  kind: ViolationKind,
  marginMs: number,
  onSimRun: () => void,
): Promise<Schedule | null> {
  onSimRun();
  const own = await probeViolation(twin, s, kind);
  if (own.evidence === undefined) return null;
  for (let factor = 2; ; factor *= 2) {
    const cut = cutAfterTwinViolation(s, own.evidence, factor);
    if (cut === null) return null;
    onSimRun();
    const still =
      marginMs > 0 ? await probeRobust(twin, cut, kind, marginMs) : await probeViolation(twin, cut, kind);
    if (still.fails) return cut;
  }
}

function probeOfRun(kind: ViolationKind, ops: Op[]): ShrinkProbe {
  return probeOf(kind, ops, checkOps(ops, [kind]));
}

/**
 * A real failure found by fuzz, shrunk by `shrinkOnRealServers`: the smaller schedule with its
 * failing run (`how: "real"`), or the schedule as found with the run that found it
 * (`how: "not-kept"`): a counterexample always comes with a run that failed.
 */
export async function shrinkFoundOnRealServers(
  target: Target,
  found: { schedule: Schedule; ops: Op[]; verdicts: Verdict[] },
  o: Omit<RealShrinkOptions, "evidence">,
): Promise<{
  schedule: Schedule;
  run: { ops: Op[]; verdicts: Verdict[] };
  steps: number;
  how: "real" | "not-kept";
  /** Shrinking on real servers stopped at its budget. */
  budgetExhausted: boolean;
  finishing: FinishingStep[];
  log: ShrinkLog;
}> {
  const evidence = probeOf(o.kind, found.ops, found.verdicts).evidence;
  const r = await shrinkOnRealServers(target, found.schedule, {
    ...o,
    ...(evidence === undefined ? {} : { evidence }),
  });
  return r.failingRun !== null
    ? {
        schedule: r.schedule,
        run: r.failingRun,
        steps: r.steps,
        how: "real",
        budgetExhausted: r.budgetExhausted,
        finishing: r.finishing,
        log: r.log,
      }
    : {
        schedule: found.schedule,
        run: { ops: found.ops, verdicts: found.verdicts },
        steps: 0,
        how: "not-kept",
        budgetExhausted: r.budgetExhausted,
        finishing: r.finishing,
        log: r.log,
      };
}
