/**
 * Targets from a user's module: `module:./my-lock.js`. The module's default export (or its
 * export named `lock`) is either
 *
 * - a LockAlgorithm (src/locks/lock.ts) written against LockEnv: it runs in the simulator as
 *   target `sim:<name>`, with the same faults and checkers as lockcheck's own locks. An
 *   optional export `options` (partial schedule options, e.g. `{ servers: 5 }`) sets its
 *   world; by default a Redis-style lock gets 1 server, an etcd/zk-style lock 3. A Redis- or
 *   etcd-style lock also gets a real-server target, `redis:<name>` or `etcd:<name>`, whose
 *   client processes import the module.
 * - a PlainLock (plain-lock.ts): a client library driven in real time, target `plain:<name>`.
 * - a LibraryLock (library-lock.ts): a client library run in lockcheck's client processes
 *   against real servers lockcheck starts, target `redis:<name>` or `etcd:<name>` only.
 *
 * `resolveTarget` accepts both forms of target and registers a module's target in the target
 * registry, so later lookups by name (e.g. replaying its saved schedules) find it.
 */
import { isAbsolute, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { registerAlgorithmModule } from "../locks/algorithm-modules.js";
import { LOCK_ALGORITHMS } from "../locks/index.js";
import { isLibraryLock, type LibraryLock } from "../locks/library-lock.js";
import { registerLibraryModule } from "../locks/library-modules.js";
import type { LockAlgorithm } from "../locks/lock.js";
import { isLockAlgorithm } from "../locks/lock-algorithm.js";
import { isPlainLock, type PlainLock } from "../locks/plain-lock.js";
import { err, type InputError, ok, type Result } from "../result.js";
import { type ScheduleOptions, scheduleOptionsSchema } from "../schedule/schedule.js";
import { findTarget, registerTarget, SIM_BASE_OPTIONS } from "../targets/index.js";
import { addRealModuleTarget } from "../targets/real.js";
import { listTargets } from "../targets/registry.js";
import type { Target } from "../targets/target.js";
import { defaultExport, importModule, namedExports } from "../util/import-module.js";
import { registerModuleRef } from "./module-refs.js";

export { isLockAlgorithm };

export const MODULE_PREFIX = "module:";

const NAME = /^[a-z0-9-]+$/;

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
    ...(algorithm.renews === true ? { renews: true } : {}),
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
  throw new Error("plain and library targets run their own clients, not LockAlgorithm.acquire");
}

/** The real target of a library adapter: its client processes drive the library itself. */
function libraryTargetFor(lock: LibraryLock): Target {
  return addRealModuleTarget(
    lock.servers,
    // Never called: each client process adapts the library's client (src/real/client/library-client.ts).
    {
      name: lock.name,
      servers: lock.servers,
      fencing: lock.fencing,
      renews: lock.renews === true,
      acquire: unused,
      release: unused,
    },
    {
      ...(lock.count === undefined ? {} : { servers: lock.count }),
      ...(lock.options?.ttlMs === undefined ? {} : { ttlMs: lock.options.ttlMs }),
      ...(lock.options?.callTimeoutMs === undefined ? {} : { callTimeoutMs: lock.options.callTimeoutMs }),
      ...(lock.options?.horizonMs === undefined ? {} : { horizonMs: lock.options.horizonMs }),
    },
    `${lock.name} (library adapter) on real ${lock.servers === "redis" ? "redis-servers" : "etcd"}`,
  );
}

/** A lock whose `renews` is there but not a boolean (a LockAlgorithm would not be recognised). */
function renewsProblem(x: unknown): { field: string; message: string } | null {
  if (typeof x !== "object" || x === null) return null;
  const renews = (x as Record<string, unknown>).renews;
  if (renews === undefined || typeof renews === "boolean") return null;
  return {
    field: "renews",
    message: `expected true or false (whether the lock renews its lease while held), got ${JSON.stringify(renews)}`,
  };
}

/**
 * A module that has `connect` and names `servers` means to be a library adapter (a plain lock
 * has no `servers`): say which field keeps it from being one, instead of taking it for a plain
 * lock and then saying that has no real-server target.
 */
function libraryAdapterProblem(x: unknown): { field: string; message: string } | null {
  if (typeof x !== "object" || x === null) return null;
  const o = x as Record<string, unknown>;
  if (typeof o.connect !== "function" || o.servers === undefined) return null;
  if (o.servers !== "redis" && o.servers !== "etcd")
    return {
      field: "servers",
      message: `a library adapter's servers must be "redis" or "etcd", got ${JSON.stringify(o.servers)} (docs/libraries.md)`,
    };
  if (
    o.count !== undefined &&
    !(Number.isInteger(o.count) && (o.count as number) >= 1 && (o.count as number) <= 9)
  )
    return {
      field: "count",
      message: `expected a whole number of servers from 1 to 9, got ${JSON.stringify(o.count)}`,
    };
  if (typeof o.name !== "string")
    return { field: "name", message: "expected a string (lowercase letters, digits, dashes)" };
  if (typeof o.fencing !== "boolean")
    return {
      field: "fencing",
      message: `expected true or false (whether grants carry a token), got ${JSON.stringify(o.fencing)}`,
    };
  if (o.renews !== undefined && typeof o.renews !== "boolean")
    return {
      field: "renews",
      message: `expected true or false (whether the library renews its lease while held), got ${JSON.stringify(o.renews)}`,
    };
  return null;
}

/** The targets of one module: its own, and for a Redis/etcd-style LockAlgorithm the real one. */
export interface LoadedModule {
  /** `sim:<name>` or `plain:<name>`; for a library adapter its real target. */
  target: Target;
  /** `redis:<name>` or `etcd:<name>`; null for a zk-style algorithm or a plain lock. */
  real: Target | null;
}

/** Module path → targets already loaded from it (a module is imported once per process). */
const loaded = new Map<string, LoadedModule>();

/** Loads `module:<path>` (path relative to `baseDir`) as a target and registers it. */
export async function loadModuleTarget(
  spec: string,
  baseDir: string = process.cwd(),
): Promise<Result<Target, InputError>> {
  const r = await loadModule(spec, baseDir);
  return r.ok ? ok(r.value.target) : r;
}

/** Loads `module:<path>` and registers its targets: the simulator/plain one and the real one. */
export async function loadModule(
  spec: string,
  baseDir: string = process.cwd(),
): Promise<Result<LoadedModule, InputError>> {
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
  let target: Target | null = null;
  let algorithmOptions: Partial<ScheduleOptions> = {};
  const library = isLibraryLock(exported) ? exported : null;
  const adapterProblem =
    library === null ? (libraryAdapterProblem(exported) ?? renewsProblem(exported)) : null;
  if (adapterProblem !== null) return err({ file: path, ...adapterProblem });
  if (library !== null) {
    // Its target is made once the name is checked (it registers a real target).
  } else if (isLockAlgorithm(exported)) {
    const opts = scheduleOptionsSchema.partial().safeParse(named.options ?? {});
    if (!opts.success)
      return err({
        file: path,
        field: "options",
        message: "the `options` export is not valid schedule options",
      });
    algorithmOptions = opts.data;
    target = simTargetFor(exported, opts.data);
  } else if (isPlainLock(exported)) {
    target = plainTargetFor(exported);
  } else {
    return err({
      file: path,
      message:
        "exports no lock: the default export (or `lock`) must be a LockAlgorithm { name, servers, fencing, acquire, release }, a library adapter { name, servers, fencing, connect } (docs/libraries.md) or a plain lock { name, fencing, connect } (see docs/custom-locks.md)",
    });
  }
  const lockName = library?.name ?? (target === null ? "" : target.name.slice(target.name.indexOf(":") + 1));
  if (!NAME.test(lockName)) {
    return err({
      file: path,
      field: "name",
      message: `lock name "${lockName}" must be lowercase letters, digits and dashes`,
    });
  }
  const realWorld =
    library !== null
      ? library.servers
      : isLockAlgorithm(exported) && exported.servers !== "zk"
        ? exported.servers
        : null;
  const names = [
    ...(target === null ? [] : [target.name]),
    ...(realWorld === null ? [] : [`${realWorld}:${lockName}`]),
  ];
  const clash = listTargets().find((t) => names.includes(t.name));
  if (clash) {
    return err({
      file: path,
      field: "name",
      message: `"${clash.name}" is already a target; give your lock another name`,
    });
  }
  if (realWorld !== null && LOCK_ALGORITHMS.some((a) => a.name === lockName)) {
    return err({
      file: path,
      field: "name",
      message: `"${lockName}" is the name of one of lockcheck's own locks; give your lock another name`,
    });
  }
  let real: Target | null = null;
  if (library !== null) {
    real = libraryTargetFor(library);
    registerTarget(real);
    registerLibraryModule(library.name, pathToFileURL(path).href);
    target = real;
  } else if (target !== null) {
    registerTarget(target);
    if (realWorld !== null && isLockAlgorithm(exported)) {
      real = addRealModuleTarget(realWorld, exported, algorithmOptions);
      registerTarget(real);
      registerAlgorithmModule(exported.name, pathToFileURL(path).href);
    }
  }
  if (target === null) throw new Error("loadModule: no target made"); // unreachable: checked above
  for (const t of [target, real]) if (t !== null) registerModuleRef(t.name, path);
  const result: LoadedModule = { target, real };
  loaded.set(path, result);
  return ok(result);
}

/**
 * `module:<absolute path>` for a target loaded from a module, so that another thread can load
 * the same target; undefined for other targets.
 */
export function moduleSpecOf(targetName: string): string | undefined {
  for (const [path, m] of loaded) {
    if (m.target.name === targetName || m.real?.name === targetName) return `${MODULE_PREFIX}${path}`;
  }
  return undefined;
}

/** A target by name (`sim:redlock`, `redis:lease`, …) or from a module (`module:./my-lock.js`). */
/**
 * The real-server target of `spec`: a module's `redis:`/`etcd:` one (`fuzz --real`, a gate
 * entry's `real`), or a built-in real target as it is.
 */
export async function resolveRealTarget(
  spec: string,
  baseDir?: string,
  field = "real",
): Promise<Result<Target, InputError>> {
  if (!spec.startsWith(MODULE_PREFIX)) {
    const t = findTarget(spec, "target");
    if (!t.ok || !t.value.deterministic) return t;
    return err({
      field,
      message: `only with a module: target (a LockAlgorithm with servers "redis" or "etcd"); ${spec} runs in the simulator: name a real target (redis:…, etcd:…) instead`,
    });
  }
  const m = await loadModule(spec, baseDir);
  if (!m.ok) return err({ ...m.error, field: m.error.field ?? "target" });
  if (m.value.real !== null) return ok(m.value.real);
  return err({
    field,
    message: `${spec} (${m.value.target.name}) has no real-server target: only a LockAlgorithm with servers "redis" or "etcd" runs on real servers`,
  });
}

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
