/**
 * Runs one block of a parallel search's run indices (blocks.ts): generates the schedules of
 * indices [start, start + count) from the seed exactly as the sequential search would, runs
 * and checks each, and stops at the first that fails. A run that throws counts as a failure:
 * the coordinator replays that index in its own thread, where the error is reported as the
 * sequential search reports it. Used by the worker threads and by the coordinator's thread.
 */
import fc from "fast-check";
import { SAFETY_CHECKERS } from "../../checkers/index.js";
import { paramsFrom, type RunPosition } from "../../generators/run-position.js";
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

/** Runs the `count` runs of `seed` from run index `from.index` (run-position.ts). */
export async function runBlock(
  target: Target,
  arb: fc.Arbitrary<Schedule>,
  seed: number,
  from: RunPosition,
  count: number,
  hooks: BlockHooks = {},
): Promise<BlockOutcome> {
  // fast-check's runner started at `from` yields the sequential search's schedules of those
  // indices, one at a time: a block holds one schedule, not `count` of them (fc.sample builds
  // the whole array first: 50,000 schedules of a late block took about 530 MB).
  const start = from.index;
  let passed = 0;
  let failedAt: number | null = null;
  let abandoned = false;
  let hookFailed = false;
  let hookError: unknown;
  const property = fc.asyncProperty(arb, async (schedule) => {
    if (hooks.abandoned?.() === true) {
      abandoned = true;
      return false;
    }
    if (await fails(target, schedule)) {
      failedAt = start + passed;
      return false;
    }
    passed++;
    try {
      hooks.passed?.(passed);
      if (hooks.between !== undefined) await hooks.between();
    } catch (error) {
      hookFailed = true;
      hookError = error;
      return false;
    }
    return true;
  });
  // endOnFailure: the first `false` ends the block, with no shrinking.
  await fc.check(property, { ...paramsFrom<[Schedule]>(seed, from), numRuns: count, endOnFailure: true });
  if (hookFailed) throw hookError;
  if (failedAt === null && !abandoned && passed !== count) {
    // fast-check skipped or interrupted runs (a global `fc.configureGlobal` time limit or
    // timeout in the caller's process): counting the block as passed would hide them.
    throw new Error(
      `a block of ${count} runs at run ${start} ran only ${passed} (fast-check's global settings?)`,
    );
  }
  return { failedAt, passed, abandoned };
}
