/**
 * `shrinkSchedule`: a world-agnostic greedy shrinker (delta debugging) for failing schedules.
 * It knows nothing about where a schedule runs: `stillFails` runs a candidate (in the
 * simulator, or against real servers) and says whether the violation is still there. It is
 * used on saved and real schedules (`lockcheck shrink`) and as a final pass after
 * fast-check's own shrinking in `fuzz`.
 *
 * When `stillFails` also hands back the failing run's history and anomalies (and the caller
 * gives those of the input), candidates aimed by them are tried early each round
 * (shrink-focus.ts): keep only the clients and cycles the violation involves.
 *
 * Guarantees: the result still fails (it is the input, or a candidate `stillFails` accepted);
 * it is never larger than the input (every accepted step strictly lowers `scheduleWeight`);
 * it stops when no candidate fails any more or when the budget runs out. Each distinct
 * candidate is run at most once.
 */
import { type Schedule, scheduleSchema } from "../../schedule/schedule.js";
import { scheduleWeight } from "../schedule-size.js";
import { shrinkCandidates } from "./shrink-candidates.js";
import { type FailureEvidence, focusCandidates, involvedClients } from "./shrink-focus.js";

export type { FailureEvidence } from "./shrink-focus.js";

export interface ShrinkBudget {
  /** Most candidate runs; default 1000. */
  maxRuns?: number;
  /** Wall-clock limit in ms; default none. */
  timeLimitMs?: number;
}

/** What is left of `budget` once `runs` runs and the time since `started` are spent. */
export function budgetLeft(budget: ShrinkBudget, started: number, runs: number): ShrinkBudget {
  return {
    ...(budget.maxRuns === undefined ? {} : { maxRuns: Math.max(0, budget.maxRuns - runs) }),
    ...(budget.timeLimitMs === undefined
      ? {}
      : { timeLimitMs: Math.max(0, budget.timeLimitMs - (Date.now() - started)) }),
  };
}

/** What running a candidate showed: whether it still fails, and if so, the evidence. */
export interface ShrinkProbe {
  fails: boolean;
  evidence?: FailureEvidence;
}

export interface ShrinkResult {
  schedule: Schedule;
  /** Candidates run. */
  runs: number;
  /** Candidates accepted (each made the schedule smaller). */
  steps: number;
  /** True if the budget ran out before no smaller failing candidate was left. */
  budgetExhausted: boolean;
}

/** Candidates a caller puts before all others, from the current schedule and its failing run. */
export type ShrinkAim = (s: Schedule, evidence: FailureEvidence | undefined) => Iterable<Schedule>;

function* candidatesFor(
  s: Schedule,
  evidence: FailureEvidence | undefined,
  aim: ShrinkAim | undefined,
): Generator<Schedule> {
  if (aim !== undefined) yield* aim(s, evidence);
  if (evidence === undefined) yield* shrinkCandidates(s);
  else yield* shrinkCandidates(s, focusCandidates(s, evidence), involvedClients(evidence));
}

/** How a caller runs the pass: how many candidates at once, and what it hears of each step. */
export interface ShrinkPace {
  /**
   * Candidates run at once (default 1). Each round takes the next `parallel` candidates in
   * order and runs them together. Worth it only where a run waits rather than computes (real
   * servers).
   */
  parallel?: number;
  /**
   * Which failing candidate of a batch is kept. "first" (the default): the first in order, the
   * one a one-at-a-time pass would keep when every probe answers the same, so the result does
   * not depend on `parallel`. "smallest": the one of least weight (the first of those), which
   * takes the bigger cut when two of a batch fail: where the runs are not deterministic anyway
   * (real servers), a round saved is a run of seconds saved.
   */
  keep?: "first" | "smallest";
  /** Called (and waited for) each time a candidate is kept, with what its probe showed. */
  onKept?: (s: Schedule, probe: ShrinkProbe) => Promise<void>;
  /**
   * A time (Date.now() ms) after which no candidate is taken, read again before each batch;
   * sooner than the budget's own when the caller needs time after the pass.
   */
  stopAt?: () => number;
}

const asProbe = (p: boolean | ShrinkProbe): ShrinkProbe => (typeof p === "boolean" ? { fails: p } : p);

/**
 * Runs the probes of a batch at once and finds the failing one of least `rank` (the earliest
 * of equals), with what it showed (null: none did). Once that is known (it failed, and every
 * probe that could outrank it answered) the others are abandoned: their signal is aborted,
 * and a probe that can stop early (a real run) does. All are waited for, so that no run
 * outlives the batch.
 */
async function bestFailing(
  probes: ((abandoned: AbortSignal) => Promise<boolean | ShrinkProbe>)[],
  rank: readonly number[],
): Promise<{ index: number; probe: ShrinkProbe } | null> {
  const answers: (ShrinkProbe | undefined)[] = probes.map(() => undefined);
  const controllers = probes.map(() => new AbortController());
  let decide: () => void = () => {};
  const decided = new Promise<void>((resolve) => {
    decide = resolve;
  });
  const outranks = (i: number, j: number): boolean => rank[i]! < rank[j]! || (rank[i] === rank[j] && i < j);
  /** The best failing answer so far, if none unanswered could beat it; -1: none fails; null: not known yet. */
  const bestKnown = (): number | null => {
    let best = -1;
    for (let i = 0; i < answers.length; i++)
      if (answers[i]?.fails === true && (best < 0 || outranks(i, best))) best = i;
    for (let j = 0; j < answers.length; j++) {
      if (answers[j] !== undefined) continue;
      if (best < 0 || outranks(j, best)) return null;
    }
    return best;
  };
  const settled = Promise.allSettled(
    probes.map(async (probe, i) => {
      try {
        answers[i] = asProbe(await probe(controllers[i]!.signal));
      } finally {
        if (bestKnown() !== null || answers.every((a) => a !== undefined)) decide();
      }
    }),
  );
  await Promise.race([decided, settled]);
  const best = bestKnown() ?? -1;
  for (let i = 0; best >= 0 && i < controllers.length; i++)
    if (answers[i] === undefined) controllers[i]!.abort();
  const outcomes = await settled;
  // A probe that threw before the answer was known is an error of the pass, as before.
  const failed = outcomes.findIndex((o, i) => o.status === "rejected" && (best < 0 || outranks(i, best)));
  if (failed >= 0) throw (outcomes[failed] as PromiseRejectedResult).reason;
  return best < 0 ? null : { index: best, probe: answers[best]! };
}

/**
 * Shrinks `schedule`, which must fail. `evidence` is the input's failing run, if known;
 * without it (or when `stillFails` answers only true or false) only the ordinary candidates
 * are tried. `aim`, if given, yields candidates tried first each round (e.g. the schedule
 * without the faults its failing run shows never fired, shrink-real.ts).
 */
export async function shrinkSchedule(
  schedule: Schedule,
  stillFails: (s: Schedule, abandoned: AbortSignal) => Promise<boolean | ShrinkProbe>,
  budget: ShrinkBudget = {},
  evidence?: FailureEvidence,
  aim?: ShrinkAim,
  pace: ShrinkPace = {},
): Promise<ShrinkResult> {
  const maxRuns = budget.maxRuns ?? 1000;
  const parallel = Math.max(1, Math.floor(pace.parallel ?? 1));
  const deadline = budget.timeLimitMs === undefined ? Infinity : Date.now() + budget.timeLimitMs;
  const tried = new Set<string>();
  let current = schedule;
  let currentEvidence = evidence;
  let weight = scheduleWeight(current);
  let runs = 0;
  let steps = 0;

  // A candidate is taken only with budget left for it: with none, the pass stops there, as
  // "exhausted" (there was a candidate it could not try).
  const outOfBudget = (extra: number) =>
    runs + extra >= maxRuns || Date.now() >= Math.min(deadline, pace.stopAt?.() ?? Infinity);

  for (;;) {
    let improved = false;
    const candidates = candidatesFor(current, currentEvidence, aim)[Symbol.iterator]();
    for (;;) {
      // The next `parallel` candidates worth a run.
      const batch: { s: Schedule; w: number }[] = [];
      let exhausted = false;
      let overBudget = false;
      while (batch.length < parallel) {
        const next = candidates.next();
        if (next.done === true) {
          exhausted = true;
          break;
        }
        if (outOfBudget(batch.length)) {
          overBudget = true;
          break;
        }
        const candidate = next.value;
        const w = scheduleWeight(candidate);
        if (w >= weight) continue;
        const key = JSON.stringify(candidate);
        if (tried.has(key)) continue;
        tried.add(key);
        if (!scheduleSchema.safeParse(candidate).success) continue;
        batch.push({ s: candidate, w });
      }
      if (batch.length > 0) {
        runs += batch.length;
        const found = await bestFailing(
          batch.map(
            ({ s }) =>
              (signal) =>
                stillFails(s, signal),
          ),
          batch.map(({ w }, i) => (pace.keep === "smallest" ? w : i)),
        );
        if (found !== null) {
          const kept = batch[found.index]!;
          current = kept.s;
          currentEvidence = found.probe.evidence;
          weight = kept.w;
          steps++;
          improved = true;
          await pace.onKept?.(kept.s, found.probe);
          break;
        }
      }
      if (overBudget) return { schedule: current, runs, steps, budgetExhausted: true };
      if (exhausted) break;
    }
    if (!improved) return { schedule: current, runs, steps, budgetExhausted: false };
  }
}
