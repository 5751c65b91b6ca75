/**
 * Targets from a user's module: `module:./my-lock.js`. The module's default export (or its
 * export named `lock`) is either
 *
 * - a LockAlgorithm (src/locks/lock.ts) written against LockEnv: it runs in the simulator as
 *   target `sim:<name>`, with the same faults and checkers as lockcheck's own locks. An
 *   optional export `options` (partial schedule options, e.g. `{ servers: 5 }`) sets its
 *   world; by default a Redis-style lock gets 1 server, an etcd/zk-style lock 3.
 * - a PlainLock (plain-lock.ts): a client library driven in real time, target `plain:<name>`.
 *
 * `resolveTarget` accepts both forms of target and registers a module's target in the target
 * registry, so later lookups by name (e.g. replaying its saved schedules) find it.
 */
import { isAbsolute, resolve } from "node:path";
import type { LockAlgorithm } from "../locks/lock.js";
import { err, type InputError, ok, type Result } from "../result.js";
import { defaultExport, importModule, namedExports } from "../runner/gate-config.js";
import { type ScheduleOptions, scheduleOptionsSchema } from "../schedule/schedule.js";
import { findTarget, registerTarget, SIM_BASE_OPTIONS } from "../targets/index.js";
import { listTargets } from "../targets/registry.js";
import type { Target } from "../targets/target.js";
import { isPlainLock, type PlainLock } from "./plain-lock.js";

export const MODULE_PREFIX = "module:";

const NAME = /^[a-z0-9-]+$/;

export function isLockAlgorithm(x: unknown): x is LockAlgorithm {
  if (typeof x !== "object" || x === null) return false;
  const o = x as Record<string, unknown>;
  return (
    typeof o.name === "string" &&
    typeof o.acquire === "function" &&
    typeof o.release === "function" &&
    typeof o.fencing === "boolean" &&
    (o.servers === "redis" || o.servers === "etcd" || o.servers === "zk")
  );
}

/** The simulator target for a user's LockAlgorithm. */
export function simTargetFor(algorithm: LockAlgorithm, options: Partial<ScheduleOptions> = {}): Target {
  const servers = options.servers ?? (algorithm.servers === "redis" ? 1 : 3);
  return {
    name: `sim:${algorithm.name}`,
    description: `${algorithm.name} (user module) in the simulator`,
    algorithm,
    defaults: { ...SIM_BASE_OPTIONS, ...options, servers },
    resources: algorithm.fencing ? ["fenced", "unfenced"] : ["unfenced", "fenced"],
    hasLeader: algorithm.servers !== "redis",
    deterministic: true,
    async run(schedule) {
      const { simulate } = await import("../sim/simulate.js");
      const r = await simulate(schedule, algorithm);
      return { ops: r.ops, stats: { ...r.stats } };
    },
  };
}

/** The real-time target for a user's PlainLock. */
export function plainTargetFor(lock: PlainLock): Target {
  return {
    name: `plain:${lock.name}`,
    description: `${lock.name} (user module), real time, in-process clients`,
    // The workload never calls this algorithm: runPlain adapts each client itself.
    algorithm: { name: lock.name, servers: "redis", fencing: lock.fencing, acquire: unused, release: unused },
    defaults: {
      ...SIM_BASE_OPTIONS,
      servers: 1,
      ttlMs: lock.options?.ttlMs ?? 1000,
      horizonMs: lock.options?.horizonMs ?? 3000,
      callTimeoutMs: lock.options?.callTimeoutMs ?? 500,
      latencyMs: { min: 0, max: 0 },
    },
    resources: lock.fencing ? ["fenced", "unfenced"] : ["unfenced", "fenced"],
    hasLeader: false,
    deterministic: false,
    async run(schedule) {
      const { runPlain } = await import("./plain-world.js");
      return runPlain(schedule, lock);
    },
  };
}

async function unused(): Promise<never> {
  throw new Error("plain targets run through runPlain, not LockAlgorithm.acquire");
}

/** Module path → target already loaded from it (a module is imported once per process). */
const loaded = new Map<string, Target>();

/** Loads `module:<path>` (path relative to `baseDir`) as a target and registers it. */
export async function loadModuleTarget(
  spec: string,
  baseDir: string = process.cwd(),
): Promise<Result<Target, InputError>> {
  const rel = spec.slice(MODULE_PREFIX.length);
  if (rel === "")
    return err({ field: "target", message: `expected ${MODULE_PREFIX}<path to a .js or .ts module>` });
  const path = isAbsolute(rel) ? rel : resolve(baseDir, rel);
  const cached = loaded.get(path);
  if (cached) return ok(cached);
  const mod = await importModule(path);
  if (!mod.ok) return mod;
  const named = namedExports(mod.value);
  const exported = defaultExport(mod.value) ?? named.lock;
  let target: Target;
  if (isLockAlgorithm(exported)) {
    const opts = scheduleOptionsSchema.partial().safeParse(named.options ?? {});
    if (!opts.success)
      return err({
        file: path,
        field: "options",
        message: "the `options` export is not valid schedule options",
      });
    target = simTargetFor(exported, opts.data);
  } else if (isPlainLock(exported)) {
    target = plainTargetFor(exported);
  } else {
    return err({
      file: path,
      message:
        "exports no lock: the default export (or `lock`) must be a LockAlgorithm { name, servers, fencing, acquire, release } or a plain lock { name, fencing, connect } (see docs/custom-locks.md)",
    });
  }
  const lockName = target.name.slice(target.name.indexOf(":") + 1);
  if (!NAME.test(lockName)) {
    return err({
      file: path,
      field: "name",
      message: `lock name "${lockName}" must be lowercase letters, digits and dashes`,
    });
  }
  const clash = listTargets().find((t) => t.name === target.name);
  if (clash) {
    return err({
      file: path,
      field: "name",
      message: `"${target.name}" is already a target; give your lock another name`,
    });
  }
  registerTarget(target);
  loaded.set(path, target);
  return ok(target);
}

/** A target by name (`sim:redlock`, `redis:lease`, …) or from a module (`module:./my-lock.js`). */
export async function resolveTarget(
  spec: string,
  baseDir?: string,
  field = "target",
): Promise<Result<Target, InputError>> {
  if (spec.startsWith(MODULE_PREFIX)) {
    const r = await loadModuleTarget(spec, baseDir);
    return r.ok ? r : err({ ...r.error, field: r.error.field ?? field });
  }
  return findTarget(spec, field);
}
