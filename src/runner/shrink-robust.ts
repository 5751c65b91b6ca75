/**
 * Shrinking with timing margins, for deterministic targets (the simulator): the greedy
 * shrinker with "fails robustly" (robust-failure.ts) as its failure condition, then wider
 * pauses where the failure allows. A schedule that does not fail robustly as given is first
 * widened (longer pauses, one client starting later); if no widening fails robustly either,
 * the result says so (`robust: false`) and the caller shrinks without margins.
 */
import type { Schedule } from "../schedule/schedule.js";
import type { Target } from "../targets/target.js";
import { probeRobust, widenings, widenMargins } from "./robust-failure.js";
import type { ViolationKind } from "./same-violation.js";
import { type FailureEvidence, type ShrinkBudget, shrinkSchedule } from "./shrink.js";

export interface RobustShrinkResult {
  /** Whether `schedule` fails robustly; when false it is the input, unshrunk. */
  robust: boolean;
  schedule: Schedule;
  /** Candidates tried (each a robust probe: one run plus its perturbations). */
  runs: number;
  steps: number;
  budgetExhausted: boolean;
}

/** One client starting `byMs` later (its first think is longer). */
function startingLater(s: Schedule, index: number, byMs: number): Schedule | null {
  const c = s.clients[index];
  const first = c?.cycles[0];
  if (c === undefined || first === undefined) return null;
  const later = { ...c, cycles: [{ ...first, thinkMs: first.thinkMs + byMs }, ...c.cycles.slice(1)] };
  return { ...s, clients: s.clients.map((x, j) => (j === index ? later : x)) };
}

/** Variants of a schedule that fails only by a hair, to find one that fails with margins. */
function* roomier(s: Schedule, marginMs: number): Generator<Schedule> {
  yield* widenings(s, marginMs);
  for (let i = 0; i < s.clients.length; i++) {
    const later = startingLater(s, i, 2 * marginMs);
    if (later === null) continue;
    yield later;
    yield* widenings(later, marginMs);
  }
}

export async function shrinkRobustly(
  target: Target,
  schedule: Schedule,
  kind: ViolationKind,
  marginMs: number,
  budget: ShrinkBudget,
  evidence?: FailureEvidence,
  onRun?: () => void,
): Promise<RobustShrinkResult> {
  const probe = async (s: Schedule) => {
    onRun?.();
    return probeRobust(target, s, kind, marginMs);
  };
  let start = schedule;
  let startEvidence = evidence;
  let runs = 1;
  let first = await probe(schedule);
  if (!first.fails) {
    for (const r of roomier(schedule, marginMs)) {
      runs++;
      first = await probe(r);
      if (first.fails) {
        start = r;
        startEvidence = first.evidence;
        break;
      }
    }
    if (!first.fails) return { robust: false, schedule, runs, steps: 0, budgetExhausted: false };
  }
  const shrunk = await shrinkSchedule(start, probe, budget, startEvidence);
  const wide = await widenMargins(target, shrunk.schedule, kind, marginMs);
  return {
    robust: true,
    schedule: wide.schedule,
    runs: runs + shrunk.runs,
    steps: shrunk.steps,
    budgetExhausted: shrunk.budgetExhausted,
  };
}
