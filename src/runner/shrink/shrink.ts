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
import { type FailureEvidence, focusCandidates } from "./shrink-focus.js";

export type { FailureEvidence } from "./shrink-focus.js";

export interface ShrinkBudget {
  /** Most candidate runs; default 1000. */
  maxRuns?: number;
  /** Wall-clock limit in ms; default none. */
  timeLimitMs?: number;
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
  yield* shrinkCandidates(s, evidence === undefined ? [] : focusCandidates(s, evidence));
}

/**
 * Shrinks `schedule`, which must fail. `evidence` is the input's failing run, if known;
 * without it (or when `stillFails` answers only true or false) only the ordinary candidates
 * are tried. `aim`, if given, yields candidates tried first each round (e.g. the schedule
 * without the faults its failing run shows never fired, shrink-real.ts).
 */
export async function shrinkSchedule(
  schedule: Schedule,
  stillFails: (s: Schedule) => Promise<boolean | ShrinkProbe>,
  budget: ShrinkBudget = {},
  evidence?: FailureEvidence,
  aim?: ShrinkAim,
): Promise<ShrinkResult> {
  const maxRuns = budget.maxRuns ?? 1000;
  const deadline = budget.timeLimitMs === undefined ? Infinity : Date.now() + budget.timeLimitMs;
  const tried = new Set<string>();
  let current = schedule;
  let currentEvidence = evidence;
  let weight = scheduleWeight(current);
  let runs = 0;
  let steps = 0;

  const outOfBudget = () => runs >= maxRuns || Date.now() >= deadline;

  for (;;) {
    let improved = false;
    for (const candidate of candidatesFor(current, currentEvidence, aim)) {
      if (outOfBudget()) return { schedule: current, runs, steps, budgetExhausted: true };
      const w = scheduleWeight(candidate);
      if (w >= weight) continue;
      const key = JSON.stringify(candidate);
      if (tried.has(key)) continue;
      tried.add(key);
      if (!scheduleSchema.safeParse(candidate).success) continue;
      runs++;
      const probe = await stillFails(candidate);
      const fails = typeof probe === "boolean" ? probe : probe.fails;
      if (fails) {
        current = candidate;
        currentEvidence = typeof probe === "boolean" ? undefined : probe.evidence;
        weight = w;
        steps++;
        improved = true;
        break;
      }
    }
    if (!improved) return { schedule: current, runs, steps, budgetExhausted: false };
  }
}
