/**
 * Runs one block of a parallel search's run indices (blocks.ts): generates the schedules of
 * indices [start, start + count) from the seed exactly as the sequential search would, runs
 * and checks each, and stops at the first that fails. A run that throws counts as a failure:
 * the coordinator replays that index in its own thread, where the error is reported as the
 * sequential search reports it. Used by the worker threads and by the coordinator's thread.
 */
import fc from "fast-check";
import { SAFETY_CHECKERS } from "../../checkers/index.js";
import type { Schedule } from "../../schedule/schedule.js";
import type { Target } from "../../targets/target.js";
import { runAndCheck } from "../execute.js";
import { violationKind } from "../same-violation.js";

async function fails(target: Target, schedule: Schedule): Promise<boolean> {
  try {
    const run = await runAndCheck(target, schedule, SAFETY_CHECKERS);
    return violationKind(run.verdicts) !== null;
  } catch {
    return true;
  }
}

export interface BlockHooks {
  /** Called after each run that passed, with the number passed so far in the block. */
  passed?(passed: number): void;
  /** Awaited between runs (the coordinator's thread yields to its event loop there). */
  between?(): Promise<void>;
  /** True when the block's result is no longer wanted: it ends early (reported as passed so far). */
  abandoned?(): boolean;
}

export interface BlockOutcome {
  /** Index of the block's first failing run; null if none failed (so far, if abandoned). */
  failedAt: number | null;
  /** Runs that passed, from the block's start. */
  passed: number;
  /** True if it ended early because `abandoned()` said so. */
  abandoned: boolean;
}

export async function runBlock(
  target: Target,
  arb: fc.Arbitrary<Schedule>,
  seed: number,
  start: number,
  count: number,
  hooks: BlockHooks = {},
): Promise<BlockOutcome> {
  const schedules = fc.sample(arb, { seed, path: String(start), numRuns: count });
  for (let k = 0; k < schedules.length; k++) {
    if (hooks.abandoned?.() === true) return { failedAt: null, passed: k, abandoned: true };
    if (await fails(target, schedules[k]!)) return { failedAt: start + k, passed: k, abandoned: false };
    hooks.passed?.(k + 1);
    if (hooks.between !== undefined) await hooks.between();
  }
  return { failedAt: null, passed: schedules.length, abandoned: false };
}
