/**
 * Planning a run on real servers (`lockcheck run`): its target, its schedule (loaded, or
 * generated from a seed), its run folder and the command that runs it again (`planRealRun`).
 * Most of it concerns targets from a user's module, above all library adapters
 * (docs/libraries.md):
 *
 * - `--redis-endpoints host:port,…` / `--etcd-endpoints …`: run a library adapter against lock
 *   servers the user already runs. lockcheck starts none and proxies none of their links, so
 *   only client faults apply there (pause, pause-at, client clock, client crash). Faults that
 *   cannot reach (on servers or their links) are dropped from the schedule and reported as
 *   `ignoredFaults`; asking for categories that cannot reach at all (partition, delay), or
 *   running a given schedule that has such faults, is an error (exit 2) unless
 *   `--allow-ignored-faults`.
 * - `--module-options <json>`: options for the adapter's `connect`, recorded in the schedule.
 * - the schedule records the module's path (`schedule.module`), so the printed
 *   `lockcheck run --schedule …` works as printed from any folder.
 */

import { basename, dirname, join } from "node:path";
import { modulePathOf, withModuleRef } from "../custom/module-refs.js";
import type { FaultCategory } from "../generators/bounds.js";
import { libraryModuleUrl } from "../locks/library-modules.js";
import { splitFaultsForExternalServers } from "../real/reachable-faults.js";
import { err, type InputError, ok, type Result } from "../result.js";
import {
  defaultRunDir,
  isDirectory,
  placementFlags,
  readVerdictFile,
  SCHEDULE_FILE,
  unusedRunDir,
  VERDICT_FILE,
} from "../runner/run-folder.js";
import {
  type Fault,
  type PartitionMode,
  type ResourceMode,
  type Schedule,
  withPartitionMode,
} from "../schedule/schedule.js";
import { REAL_TARGETS, realTargetFor } from "../targets/real.js";
import { type ServerPlacement, supportedResource, type Target } from "../targets/target.js";
import { generateSchedule } from "./generate-schedule.js";
import { loadScheduleArg } from "./schedule-arg.js";

export interface LibraryRunFlags {
  redisEndpoints?: string;
  etcdEndpoints?: string;
  allowIgnoredFaults?: boolean;
  moduleOptions?: string;
}

export interface Endpoint {
  host: string;
  port: number;
}

/** The user's own lock servers, if the flags name some. */
export interface ExternalServers {
  kind: "redis" | "etcd";
  flag: "--redis-endpoints" | "--etcd-endpoints";
  endpoints: Endpoint[];
}

function parseEndpoints(text: string, flag: string): Result<Endpoint[], InputError> {
  const out: Endpoint[] = [];
  for (const part of text.split(",").map((p) => p.trim())) {
    const m = /^(\[[^\]]+\]|[^:\s]+):(\d{1,5})$/.exec(part);
    const port = m === null ? Number.NaN : Number(m[2]);
    if (m === null || !Number.isInteger(port) || port < 1 || port > 65535)
      return err({ field: flag, message: `expected host:port[,host:port…], got "${part}"` });
    out.push({ host: m[1]!.replace(/^\[|\]$/g, ""), port });
  }
  return ok(out);
}

/** `--redis-endpoints` / `--etcd-endpoints`, checked against the target. */
export function externalServersOf(
  flags: LibraryRunFlags,
  target: Target,
): Result<ExternalServers | null, InputError> {
  if (flags.redisEndpoints !== undefined && flags.etcdEndpoints !== undefined)
    return err({
      field: "--redis-endpoints",
      message: "give --redis-endpoints or --etcd-endpoints, not both",
    });
  const flag =
    flags.redisEndpoints !== undefined
      ? ("--redis-endpoints" as const)
      : flags.etcdEndpoints !== undefined
        ? ("--etcd-endpoints" as const)
        : null;
  if (flag === null) return ok(null);
  const kind = flag === "--redis-endpoints" ? ("redis" as const) : ("etcd" as const);
  if (libraryModuleUrl(target.algorithm.name) === undefined)
    return err({
      field: flag,
      message: `${target.name} is not a library adapter: servers you run yourself work with --target module:<adapter> (docs/libraries.md); lockcheck's own targets run on servers it starts`,
    });
  if (!target.name.startsWith(`${kind}:`))
    return err({
      field: flag,
      message: `${target.name} needs ${target.name.split(":")[0]} servers, not ${kind}`,
    });
  const endpoints = parseEndpoints((flags.redisEndpoints ?? flags.etcdEndpoints)!, flag);
  if (!endpoints.ok) return endpoints;
  return ok({ kind, flag, endpoints: endpoints.value });
}

/** `--module-options`: a JSON object, for module targets only. */
export function moduleOptionsOf(
  flags: LibraryRunFlags,
  target: Target,
): Result<Record<string, unknown> | undefined, InputError> {
  if (flags.moduleOptions === undefined) return ok(undefined);
  if (modulePathOf(target.name) === undefined)
    return err({ field: "--module-options", message: `${target.name} does not come from a module` });
  let value: unknown;
  try {
    value = JSON.parse(flags.moduleOptions);
  } catch (e) {
    return err({ field: "--module-options", message: `not JSON: ${(e as Error).message}` });
  }
  if (typeof value !== "object" || value === null || Array.isArray(value))
    return err({ field: "--module-options", message: "expected a JSON object, e.g. '{\"retryCount\":0}'" });
  return ok(value as Record<string, unknown>);
}

/** The schedule as it will run: module recorded, and on the user's servers only faults that reach. */
export interface PreparedSchedule {
  schedule: Schedule;
  /** Faults dropped because they cannot reach the user's servers. */
  ignored: Fault[];
}

export function prepareSchedule(
  schedule: Schedule,
  opts: {
    external: ExternalServers | null;
    moduleOptions: Record<string, unknown> | undefined;
    /** Categories asked for with --faults (generated schedules); undefined for --schedule. */
    categories: readonly FaultCategory[] | undefined;
    allowIgnoredFaults: boolean;
  },
): Result<PreparedSchedule, InputError> {
  let s = withModuleRef(schedule);
  if (opts.moduleOptions !== undefined && s.module !== undefined)
    s = { ...s, module: { ...s.module, options: opts.moduleOptions } };
  const external = opts.external;
  if (external === null) return ok({ schedule: s, ignored: [] });
  s = { ...s, options: { ...s.options, servers: external.endpoints.length } };
  const { kept, ignored } = splitFaultsForExternalServers(s.faults);
  const unreachable = (opts.categories ?? []).filter((c) => c === "partition" || c === "delay");
  const refuse =
    !opts.allowIgnoredFaults &&
    (unreachable.length > 0 || (opts.categories === undefined && ignored.length > 0));
  if (refuse) {
    const what =
      unreachable.length > 0
        ? `fault categories ${unreachable.join(", ")} cannot reach`
        : `${ignored.length} fault${ignored.length === 1 ? "" : "s"} of the schedule (on servers or their links) cannot reach`;
    return err({
      field: opts.categories === undefined ? "--schedule" : "--faults",
      message: `${what} servers you run yourself (${external.flag}): lockcheck controls only its client processes there (pause, pause-at, client clock, client crash); pass --allow-ignored-faults to run without them`,
    });
  }
  return ok({ schedule: { ...s, faults: kept }, ignored });
}

/** The warning printed when faults were dropped. */
export function ignoredFaultsLine(external: ExternalServers, ignored: readonly Fault[]): string {
  const kinds = [...new Set(ignored.map((f) => f.kind))].join(", ");
  return `ignored ${ignored.length} fault${ignored.length === 1 ? "" : "s"} (${kinds}): they act on servers or links lockcheck does not run (${external.flag}); only client faults apply`;
}

/** The flags that must be repeated to run the saved schedule again the same way. */
export function rerunFlags(external: ExternalServers | null): string {
  if (external === null) return "";
  return ` ${external.flag} ${external.endpoints.map((e) => `${e.host.includes(":") ? `[${e.host}]` : e.host}:${e.port}`).join(",")}`;
}

/** What a run on real servers is asked to run (`lockcheck run`'s flags, parsed). */
export interface RealRunAsk extends LibraryRunFlags {
  /** A real target's name; default: the schedule's target's real form. */
  target?: string;
  /** A schedule.json or a run folder; without it one is generated from `generate`. */
  schedule?: string;
  resource?: ResourceMode;
  generate?: { faults: FaultCategory[]; seed: number; durationMs: number; clients: number };
  /** The run folder (default lockcheck-out/<target>-<seed>-real). */
  out?: string;
  /** Where the servers run: repeated in the commands that run it again. */
  placement?: ServerPlacement;
  /** What two-way partitions do (default: the schedule's, else cut); saved in the schedule. */
  partitionMode?: PartitionMode;
}

export interface RealRunPlan {
  target: Target;
  schedule: Schedule;
  /** The user's own lock servers (library adapters), or null: lockcheck starts them. */
  external: ExternalServers | null;
  /** Faults dropped because they cannot reach the target. */
  ignored: Fault[];
  outDir: string;
  /** The command that runs the saved schedule again the same way. */
  rerunCommand: string;
  /**
   * The command that shrinks a failure of it on servers like these, or null on the user's own
   * servers (shrinking starts servers of its own).
   */
  shrinkCommand: string | null;
  /**
   * The run folder `schedule` came from, if its saved verdicts say that run failed: a rerun on
   * real servers may pass, and the user should hear that it failed before. Null otherwise.
   */
  failedBefore: string | null;
}

const REAL_NAMES = REAL_TARGETS.map((t) => t.name);

function pickTarget(name: string | undefined, fromSchedule: string | undefined): Result<Target, InputError> {
  const wanted = name ?? fromSchedule;
  if (wanted === undefined)
    return err({
      field: "--target",
      message: `give --target (one of ${REAL_NAMES.join(", ")}) or --schedule`,
    });
  const t = name !== undefined ? REAL_TARGETS.find((x) => x.name === name) : realTargetFor(wanted);
  if (t === undefined) {
    return err({
      field: name !== undefined ? "--target" : "target",
      message: `no real target for "${wanted}"; valid real targets: ${REAL_NAMES.join(", ")}`,
    });
  }
  return ok(t);
}

/** Target and schedule; `categories`: the faults asked for (generated schedules). */
async function draftPlan(
  ask: RealRunAsk,
): Promise<Result<{ target: Target; schedule: Schedule; categories?: FaultCategory[] }, InputError>> {
  const resource = ask.resource;
  if (ask.schedule !== undefined) {
    const loaded = await loadScheduleArg(ask.schedule);
    if (!loaded.ok) return loaded;
    const target = pickTarget(ask.target, loaded.value.target);
    if (!target.ok) return target;
    const schedule: Schedule = {
      ...loaded.value,
      target: target.value.name,
      resource: resource ?? loaded.value.resource,
    };
    const supported = supportedResource(target.value, schedule.resource, "resource");
    if (!supported.ok) return supported;
    return ok({ target: target.value, schedule });
  }
  const target = pickTarget(ask.target, undefined);
  if (!target.ok) return target;
  if (resource !== undefined) {
    const supported = supportedResource(target.value, resource, "--resource");
    if (!supported.ok) return supported;
  }
  const g = ask.generate ?? { faults: [], seed: 0, durationMs: 20_000, clients: 4 };
  const schedule = generateSchedule(target.value, {
    seed: g.seed,
    faults: g.faults,
    ...(resource === undefined ? {} : { resource }),
    real: { durationMs: g.durationMs, clients: g.clients },
  });
  return ok({ target: target.value, schedule, categories: g.faults });
}

export async function planRealRun(ask: RealRunAsk): Promise<Result<RealRunPlan, InputError>> {
  const drafted = await draftPlan(ask);
  if (!drafted.ok) return drafted;
  const { target, categories } = drafted.value;
  const schedule = withPartitionMode(drafted.value.schedule, ask.partitionMode);
  const external = externalServersOf(ask, target);
  if (!external.ok) return external;
  const moduleOptions = moduleOptionsOf(ask, target);
  if (!moduleOptions.ok) return moduleOptions;
  const prepared = prepareSchedule(schedule, {
    external: external.value,
    moduleOptions: moduleOptions.value,
    categories,
    allowIgnoredFaults: ask.allowIgnoredFaults === true,
  });
  if (!prepared.ok) return prepared;
  const s = prepared.value.schedule;
  // A default folder never overwrites an earlier run (a rerun of a saved counterexample may pass).
  const outDir =
    ask.out ?? (await unusedRunDir(defaultRunDir(target.name, s.seed, 0).replace(/-0$/, "-real")));
  const where = placementFlags(ask.placement);
  return ok({
    target,
    schedule: s,
    external: external.value,
    ignored: prepared.value.ignored,
    outDir,
    rerunCommand: `lockcheck run --schedule ${outDir}${where}${rerunFlags(external.value)}`,
    shrinkCommand: external.value === null ? `lockcheck shrink ${outDir}${where}` : null,
    failedBefore: ask.schedule === undefined ? null : await failedRunFolder(ask.schedule),
  });
}

/** The run folder of `schedulePath` (a folder, or its schedule.json) if its verdict.json says it failed. */
async function failedRunFolder(schedulePath: string): Promise<string | null> {
  const dir =
    (await isDirectory(schedulePath)) === true
      ? schedulePath
      : basename(schedulePath) === SCHEDULE_FILE
        ? dirname(schedulePath)
        : null;
  if (dir === null) return null;
  const verdicts = await readVerdictFile(join(dir, VERDICT_FILE), []);
  return verdicts?.some((v) => v.valid === false) === true ? dir : null;
}
