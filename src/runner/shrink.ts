/**
 * `shrinkSchedule`: a world-agnostic greedy shrinker (delta debugging) for failing schedules.
 * It knows nothing about where a schedule runs: `stillFails` runs a candidate (in the
 * simulator, or against real servers) and says whether the violation is still there. It is
 * used on saved and real schedules (`lockcheck shrink`) and as a final pass after
 * fast-check's own shrinking in `fuzz`.
 *
 * Guarantees: the result still fails (it is the input, or a candidate `stillFails` accepted);
 * it is never larger than the input (every accepted step strictly lowers `scheduleWeight`);
 * it stops when no candidate fails any more or when the budget runs out. Each distinct
 * candidate is run at most once.
 */
import { type Schedule, scheduleSchema } from "../schedule/schedule.js";
import { scheduleWeight } from "./schedule-size.js";
import { shrinkCandidates } from "./shrink-candidates.js";

export interface ShrinkBudget {
  /** Most candidate runs; default 1000. */
  maxRuns?: number;
  /** Wall-clock limit in ms; default none. */
  timeLimitMs?: number;
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

export async function shrinkSchedule(
  schedule: Schedule,
  stillFails: (s: Schedule) => Promise<boolean>,
  budget: ShrinkBudget = {},
): Promise<ShrinkResult> {
  const maxRuns = budget.maxRuns ?? 1000;
  const deadline = budget.timeLimitMs === undefined ? Infinity : Date.now() + budget.timeLimitMs;
  const tried = new Set<string>();
  let current = schedule;
  let weight = scheduleWeight(current);
  let runs = 0;
  let steps = 0;

  const outOfBudget = () => runs >= maxRuns || Date.now() >= deadline;

  for (;;) {
    let improved = false;
    for (const candidate of shrinkCandidates(current)) {
      if (outOfBudget()) return { schedule: current, runs, steps, budgetExhausted: true };
      const w = scheduleWeight(candidate);
      if (w >= weight) continue;
      const key = JSON.stringify(candidate);
      if (tried.has(key)) continue;
      tried.add(key);
      if (!scheduleSchema.safeParse(candidate).success) continue;
      runs++;
      if (await stillFails(candidate)) {
        current = candidate;
        weight = w;
        steps++;
        improved = true;
        break;
      }
    }
    if (!improved) return { schedule: current, runs, steps, budgetExhausted: false };
  }
}
