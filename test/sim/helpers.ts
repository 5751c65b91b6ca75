/** Small builders and hand-written lock algorithms for the simulator's tests. */
import { checkOps, SAFETY_CHECKERS } from "../../src/checkers/index.js";
import type { LockEnv } from "../../src/env/env.js";
import { serializeOp } from "../../src/history/jsonl.js";
import type { ClientOp, NemesisOp, Op } from "../../src/history/op.js";
import type { AcquireOutcome, LockAlgorithm, ReleaseOutcome } from "../../src/locks/lock.js";
import type { Fault, Schedule, ScheduleOptions } from "../../src/schedule/schedule.js";
import { findTarget } from "../../src/targets/index.js";

export const MS = 1_000_000;

export function scheduleOf(parts: {
  servers?: number;
  resource?: Schedule["resource"];
  options?: Partial<ScheduleOptions>;
  clients?: Schedule["clients"];
  faults?: Fault[];
  seed?: number;
}): Schedule {
  return {
    version: 1,
    target: "sim:test",
    resource: parts.resource ?? "unfenced",
    seed: parts.seed ?? 1,
    options: {
      lockName: "L",
      ttlMs: 1000,
      callTimeoutMs: 10_000,
      horizonMs: 20_000,
      latencyMs: { min: 10, max: 10 },
      lossRate: 0,
      servers: parts.servers ?? 1,
      ...parts.options,
    },
    clients: parts.clients ?? [{ id: 0, cycles: [{ thinkMs: 100, holdMs: 0, writes: 0 }] }],
    faults: parts.faults ?? [],
  };
}

export function historyBytes(ops: readonly Op[]): string {
  return ops.map((op) => `${serializeOp(op)}\n`).join("");
}

export function clientOps(ops: readonly Op[], process: number): ClientOp[] {
  return ops.filter((op): op is ClientOp => op.process === process);
}

export function nemesisOps(ops: readonly Op[]): NemesisOp[] {
  return ops.filter((op): op is NemesisOp => op.process === "nemesis");
}

/** The completion of the n-th (0-based) call with function `f` of a process. */
export function completion(ops: readonly Op[], process: number, f: string, n = 0): ClientOp {
  const found = clientOps(ops, process).filter((op) => op.f === f && op.type !== "invoke")[n];
  if (found === undefined) throw new Error(`no completion #${n} of ${f} by ${process}`);
  return found;
}

export function invocation(ops: readonly Op[], process: number, f: string, n = 0): ClientOp {
  const found = clientOps(ops, process).filter((op) => op.f === f && op.type === "invoke")[n];
  if (found === undefined) throw new Error(`no invoke #${n} of ${f} by ${process}`);
  return found;
}

/**
 * A lock that is one SET NX PX on server:0 (granted iff it was set), released by
 * compare-and-delete: the smallest algorithm that exercises the Redis-like node.
 */
export const setOnce: LockAlgorithm = {
  name: "set-once",
  servers: "redis",
  fencing: false,
  async acquire(env, req): Promise<AcquireOutcome> {
    const r = await env.redis[0]!.setNxPx(`k:${req.lock}`, req.owner, req.ttlMs);
    if (!r.ok)
      return r.error.kind === "timeout"
        ? { outcome: "unknown", reason: "timeout" }
        : { outcome: "denied", reason: "unreachable" };
    return r.value
      ? { outcome: "granted", token: null, handle: { request: req, state: null } }
      : { outcome: "denied", reason: "held" };
  },
  async release(env, handle): Promise<ReleaseOutcome> {
    const r = await env.redis[0]!.delIfEquals(`k:${handle.request.lock}`, handle.request.owner);
    if (!r.ok) return { outcome: "unknown", reason: r.error.kind };
    return r.value ? { outcome: "released" } : { outcome: "not-held" };
  },
};

/**
 * An "algorithm" that runs `probe` as its acquire (and is then denied): a way to run
 * arbitrary client code against the simulated LockEnv and observe what it sees.
 */
export function probe(
  servers: LockAlgorithm["servers"],
  body: (env: LockEnv) => Promise<void>,
): LockAlgorithm {
  return {
    name: "probe",
    servers,
    fencing: false,
    async acquire(env): Promise<AcquireOutcome> {
      await body(env);
      return { outcome: "denied", reason: "probe" };
    },
    async release(): Promise<ReleaseOutcome> {
      return { outcome: "not-held" };
    },
  };
}

/** Runs `s` on its (simulated) target and names the safety checkers that found a violation. */
export async function simulateChecked(s: Schedule): Promise<{ ops: Op[]; violations: string[] }> {
  const t = findTarget(s.target);
  if (!t.ok) throw new Error(t.error.message);
  const { ops } = await t.value.run(s);
  const violations = checkOps(ops, SAFETY_CHECKERS)
    .filter((v) => v.valid === false)
    .map((v) => v.checker);
  return { ops, violations };
}
