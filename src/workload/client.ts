/**
 * The client workload: what one client process does, in any world. For each planned cycle it
 * thinks, acquires, writes to the resource `writes` times spread over the hold, and releases.
 * Every call is recorded as an invoke and a completion through a `ClientRecorder`; the world
 * stamps times and indices (true time, not the client's skewed clock).
 */
import type { CallResult, LockEnv, ResourceWriteResult } from "../env/env.js";
import { driveAsync, type StepEnv, type Steps, stepEnvOf } from "../env/steps.js";
import type { AcquireOp, ReleaseOp, WriteOp } from "../history/op.js";
import type { LockAlgorithm } from "../locks/lock.js";
import { type StepLock, stepLockOf } from "../locks/step-lock.js";
import type { ClientPlan } from "../schedule/schedule.js";

type Fields<T> = Omit<T, "index" | "time" | "process" | "type">;
export type InvokeFields = Fields<AcquireOp> | Fields<ReleaseOp> | Fields<WriteOp>;

/** Completion fields: what the outcome adds to the invoke (grant, token, accepted, error). */
export interface CompletionFields {
  grant?: string;
  token?: bigint;
  accepted?: boolean;
  /** An accepted write's apply order at the resource (WriteOp.seq), when it reports one. */
  seq?: bigint;
  error?: string;
  value?: unknown;
}

/** Where a client's events go. The world assigns index, time and process. */
export interface ClientRecorder {
  /** Records an invoke; returns an id to complete it with. */
  invoke(fields: InvokeFields): number;
  complete(callId: number, type: "ok" | "fail" | "info", fields?: CompletionFields): void;
}

export interface WorkloadOptions {
  lockName: string;
  ttlMs: number;
  /** No new cycle starts once the client's clock says this much time has passed since it started. */
  horizonMs: number;
}

/** Grant ids are "<client>:<n>": client 3's fifth acquisition attempt is "3:4". */
export function grantId(clientId: number, attempt: number): string {
  return `${clientId}:${attempt}`;
}

/**
 * One client's whole run, against real servers or any world that gives a LockEnv: the same
 * steps as `clientSteps`, driven as an async function.
 */
export function runClient(
  env: LockEnv,
  algorithm: LockAlgorithm,
  plan: ClientPlan,
  options: WorkloadOptions,
  rec: ClientRecorder,
): Promise<void> {
  return driveAsync(
    clientSteps(
      stepEnvOf(env),
      stepLockOf(algorithm, () => env),
      plan,
      options,
      rec,
    ),
  );
}

/**
 * One client's whole run as step code (env/steps.ts), which the simulator resumes without
 * promises. The hold and the release are written out here rather than as helpers: each
 * delegated generator costs an object and a hop per cycle.
 */
export function* clientSteps(
  env: StepEnv,
  algorithm: StepLock,
  plan: ClientPlan,
  options: WorkloadOptions,
  rec: ClientRecorder,
): Steps<void> {
  const started = env.now();
  const lock = options.lockName;
  let attempt = 0;
  for (const cycle of cyclesOf(plan, env, started)) {
    if (cycle.thinkMs > 0) yield* env.sleep(cycle.thinkMs);
    if (env.now() - started >= options.horizonMs) return;

    const grant = grantId(env.clientId, attempt++);
    yield* env.checkpoint("before-acquire");
    const acq = rec.invoke({ f: "acquire", lock, ttlMs: options.ttlMs });
    const outcome = yield* algorithm.acquire(env, { lock, ttlMs: options.ttlMs, owner: grant });
    const problem = acquireAnswerProblem(outcome);
    if (problem !== null) throw new TypeError(`lock ${algorithm.name}: acquire() ${problem}`);
    if (outcome.outcome === "denied") {
      rec.complete(acq, "fail", { error: outcome.reason });
      continue;
    }
    if (outcome.outcome === "unknown") {
      rec.complete(acq, "info", { error: outcome.reason });
      continue;
    }
    const token = outcome.token;
    rec.complete(acq, "ok", token === null ? { grant } : { grant, token });
    yield* env.checkpoint("acquired");

    // The hold: `writes` writes spread over `holdMs`, each after its share of the hold.
    const { holdMs, writes } = cycle;
    const gap = writes > 0 ? Math.floor(holdMs / writes) : holdMs;
    if (writes === 0 && gap > 0) yield* env.sleep(gap);
    for (let i = 0; i < writes; i++) {
      if (gap > 0) yield* env.sleep(gap);
      yield* env.checkpoint("before-write");
      const value = `${grant}/${i}`;
      const w = rec.invoke(
        token === null ? { f: "write", lock, grant, value } : { f: "write", lock, grant, token, value },
      );
      recordWrite(rec, w, yield* env.resource.write({ lock, grant, token, value }));
    }

    yield* env.checkpoint("before-release");
    const rel = rec.invoke({ f: "release", lock, grant });
    const released = yield* algorithm.release(env, outcome.handle);
    const releaseProblem = releaseAnswerProblem(released);
    if (releaseProblem !== null) throw new TypeError(`lock ${algorithm.name}: release() ${releaseProblem}`);
    if (released.outcome === "released") rec.complete(rel, "ok");
    else if (released.outcome === "not-held") rec.complete(rel, "fail", { error: "not-held" });
    else rec.complete(rel, "info", { error: released.reason });
  }
}

/**
 * The plan's cycles in order; with `repeat`, over and over (the caller stops at the horizon),
 * unless a whole pass took no time on the client's clock (it would never reach the horizon).
 */
function* cyclesOf(plan: ClientPlan, env: StepEnv, started: number): Generator<ClientPlan["cycles"][number]> {
  yield* plan.cycles;
  if (plan.repeat !== true || plan.cycles.length === 0) return;
  let passStart = started;
  for (let now = env.now(); now !== passStart; now = env.now()) {
    passStart = now;
    yield* plan.cycles;
  }
}

function recordWrite(rec: ClientRecorder, w: number, r: CallResult<ResourceWriteResult>): void {
  if (r.ok) {
    const { accepted, seq } = r.value;
    rec.complete(w, "ok", accepted && seq !== undefined ? { accepted, seq } : { accepted });
  } else rec.complete(w, r.error.kind === "unreachable" ? "fail" : "info", { error: r.error.kind });
}

const shown = (x: unknown): string =>
  x === null ? "null" : typeof x === "string" ? JSON.stringify(x) : typeof x;

/**
 * What is wrong with an acquire answer (a user's lock module can return anything), or null.
 * Without this a typo such as `{ outcome: "ok" }` would be taken for a grant.
 */
function acquireAnswerProblem(a: unknown): string | null {
  const expected =
    'expected { outcome: "granted", token: bigint | null, handle } or { outcome: "denied" | "unknown", reason }';
  if (typeof a !== "object" || a === null) return `returned ${shown(a)}; ${expected}`;
  const o = a as Record<string, unknown>;
  if (o.outcome === "denied" || o.outcome === "unknown") return null;
  if (o.outcome !== "granted") return `returned outcome ${shown(o.outcome)}; ${expected}`;
  if (o.token !== null && typeof o.token !== "bigint")
    return `returned a grant whose token is ${shown(o.token)}; expected a bigint, or null without fencing`;
  if (typeof o.handle !== "object" || o.handle === null)
    return `returned a grant without a handle; ${expected}`;
  return null;
}

function releaseAnswerProblem(r: unknown): string | null {
  const expected = 'expected { outcome: "released" | "not-held" } or { outcome: "unknown", reason }';
  if (typeof r !== "object" || r === null) return `returned ${shown(r)}; ${expected}`;
  const outcome = (r as Record<string, unknown>).outcome;
  if (outcome === "released" || outcome === "not-held" || outcome === "unknown") return null;
  return `returned outcome ${shown(outcome)}; ${expected}`;
}
