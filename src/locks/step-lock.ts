/**
 * Lock algorithms written as step code (env/steps.ts): every built-in algorithm is one, so the
 * simulator runs it without promises; its `acquire`/`release` run the same steps as async
 * functions for real servers and for callers that hold a LockEnv.
 */
import type { LockEnv } from "../env/env.js";
import { awaiting, driveAsync, type StepEnv, type Steps, stepEnvOf } from "../env/steps.js";
import type { AcquireOutcome, LockAlgorithm, LockHandle, LockRequest, ReleaseOutcome } from "./lock.js";

/** A lock algorithm's acquire and release as step code. */
export interface StepLock {
  readonly name: string;
  acquire(env: StepEnv, req: LockRequest): Steps<AcquireOutcome>;
  release(env: StepEnv, handle: LockHandle): Steps<ReleaseOutcome>;
}

/**
 * The step form behind each `acquire` that `steppedLock` made, and the `release` that goes
 * with it. Keyed by the functions, not a field of the algorithm: a caller that wraps a
 * built-in lock (`{ ...redlock, acquire: counted }`) must have its own acquire run.
 */
const stepForms = new WeakMap<
  LockAlgorithm["acquire"],
  { steps: StepLock; release: LockAlgorithm["release"] }
>();

/** The LockAlgorithm of a step lock: its async `acquire`/`release` drive the same steps. */
export function steppedLock(
  about: Omit<LockAlgorithm, "name" | "acquire" | "release">,
  steps: StepLock,
): LockAlgorithm {
  const acquire: LockAlgorithm["acquire"] = (env, req) => driveAsync(steps.acquire(stepEnvOf(env), req));
  const release: LockAlgorithm["release"] = (env, handle) =>
    driveAsync(steps.release(stepEnvOf(env), handle));
  stepForms.set(acquire, { steps, release });
  return { ...about, name: steps.name, acquire, release };
}

/** The algorithm's own step form, if its acquire and release are a step lock's, unwrapped. */
function ownSteps(algorithm: LockAlgorithm): StepLock | null {
  const form = stepForms.get(algorithm.acquire);
  return form !== undefined && form.release === algorithm.release && form.steps.name === algorithm.name
    ? form.steps
    : null;
}

/**
 * The step form of any algorithm: its own, or (a user's async algorithm, or a built-in one
 * wrapped) its promises waited for. `asyncEnv` gives the LockEnv an async algorithm is called
 * with; it is asked for only then.
 */
export function stepLockOf(algorithm: LockAlgorithm, asyncEnv: () => LockEnv): StepLock {
  const own = ownSteps(algorithm);
  if (own !== null) return own;
  return {
    name: algorithm.name,
    acquire: (_env, req) => awaiting(algorithm.acquire(asyncEnv(), req)),
    release: (_env, handle) => awaiting(algorithm.release(asyncEnv(), handle)),
  };
}
