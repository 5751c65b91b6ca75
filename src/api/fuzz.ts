/**
 * `fuzzCampaign(options)`: what `lockcheck fuzz` does between its flags and its output, and
 * `fuzz(options)`, its library form. Searches for a schedule that makes the target violate
 * safety (on every core with `workers`, one shard of a campaign with `shard`, on real servers
 * in processes or Docker); on a violation, shrinks it, saves the run folder (unless
 * `save: false`) and returns the minimal counterexample with the command that replays it.
 * `fuzzCampaign` returns bad options as an InputError value; `fuzz` throws them as a
 * LockcheckInputError.
 */
import { randomInt } from "node:crypto";
import { rm } from "node:fs/promises";
import { combineValidity, type Validity, type Verdict } from "../checkers/verdict.js";
import { DEFAULT_FAULT_CATEGORIES, type FaultCategory } from "../generators/bounds.js";
import type { Op } from "../history/op.js";
import type { DockerRunOptions } from "../real/docker/world.js";
import { colorsFor } from "../report/colors.js";
import { formatTimeline } from "../report/console-timeline.js";
import type { Shard } from "../report/gate-result.js";
import { err, type InputError, ok, type Result } from "../result.js";
import type {
  FoundViolation,
  FuzzCounterexample,
  FuzzProgress,
  FuzzResult,
  LibraryCrashes,
  FuzzOptions as RunnerFuzzOptions,
} from "../runner/fuzz.js";
import { type RunRange, shardRange } from "../runner/fuzz-shard.js";
import { defaultRunDir, replayCommand, saveReplayableRun, unusedRunDir } from "../runner/run-folder.js";
import { type ScheduleSize, scheduleSize } from "../runner/schedule-size.js";
import { fuzzOnCores } from "../runner/workers/fuzz-parallel.js";
import type { PartitionMode, ResourceMode, Schedule, ScheduleOptions } from "../schedule/schedule.js";
import { type ServerPlacement, supportedResource, type Target } from "../targets/target.js";
import type { Cluster } from "./catalog.js";
import { LockcheckInputError, type TargetArg, targetFrom } from "./target-arg.js";

export type { FuzzCounterexample, FuzzProgress, FuzzResult, LibraryCrashes, ScheduleSize, Shard };

export interface FuzzOptions {
  /** "sim:redlock", "module:./my-lock.js", a Target, a LockAlgorithm or a PlainLock. */
  target: TargetArg;
  /**
   * With "module:<path>" of a LockAlgorithm on Redis or etcd: fuzz its real-server target
   * (`redis:<name>`, `etcd:<name>`) instead of its simulator one (`lockcheck fuzz --real`).
   */
  real?: boolean;
  /** Default: the target's first resource mode. */
  resource?: ResourceMode;
  /** Seed of the search; default random (the result says which). */
  seed?: number;
  /** Schedules to try; default 1000, or unbounded when only `timeLimitMs` is set. */
  runs?: number;
  timeLimitMs?: number;
  /** Fault categories; default all. */
  faults?: readonly FaultCategory[];
  /** Most clients in a schedule. */
  clients?: number;
  /** Overrides of the target's world options. */
  options?: Partial<ScheduleOptions>;
  /** Shrink the counterexample (default true). */
  shrink?: boolean;
  /**
   * Real targets: how long shrinking the counterexample on the servers may take, in ms. By
   * default 120 000, and at most 24 candidate runs; given, only this time bounds it.
   */
  shrinkTimeLimitMs?: number;
  /** Timing margin (ms) the shrunk counterexample keeps (default 50); 0: the bare minimum. */
  marginMs?: number;
  /** Folder to save a counterexample in (default lockcheck-out/<target>-<seed>-<run>, + "-unshrunk" when not shrunk); false: do not save. */
  save?: string | false;
  onProgress?: (p: FuzzProgress) => void;
  /**
   * Called when the search finds a violation, before shrinking it, with the folder the run as
   * found was just saved in (null when saving is off or failed). On real servers that folder
   * is kept; in the simulator it is removed once the shrunk counterexample is saved.
   */
  onFound?: (found: { foundAtRun: number; dir: string | null }) => void;
  /**
   * Real targets: called each time shrinking has kept a smaller schedule that failed on real
   * servers and saved it, with its failing run, in the counterexample's folder (the final save
   * writes over it): an interrupted shrink keeps the smallest failure so far there.
   */
  onSmallerSaved?: (dir: string, size: ScheduleSize) => void;
  /**
   * Threads searching at once (default 1). Used for simulated targets given by name or module
   * (a Target or lock object made in the caller's code cannot be loaded by another thread);
   * the same seed gives the same result whatever the number. On a real target: runs at once,
   * each on servers of its own.
   */
  workers?: number;
  /** Search only the i-th of n equal ranges of the `runs` schedules (one CI job each; `lockcheck merge` combines them). */
  shard?: Shard;
  /** Real targets: length of each run in ms (clients keep cycling, faults keep coming). */
  runMs?: number;
  /** Real targets: where servers run, local processes (default) or Docker containers. */
  cluster?: Cluster;
  /** With `cluster: "docker"`: images and Compose file (printed commands repeat them). */
  docker?: DockerRunOptions;
  /** Real targets: what two-way partitions do to TCP (default cut); saved in every schedule. */
  partitionMode?: PartitionMode;
  /** Called once the search is planned (seed drawn, the shard's runs known), before it starts. */
  onStart?: (plan: FuzzPlan) => void;
  /** How errors name these options (the cli passes its flags, e.g. `{ target: "--target" }`). */
  fieldNames?: Partial<
    Record<
      "target" | "real" | "resource" | "shard" | "runMs" | "cluster" | "partitionMode" | "shrinkTimeLimitMs",
      string
    >
  >;
}

/** Which part of a campaign a sharded search tries. */
export interface ShardPart {
  shard: Shard;
  range: RunRange;
  campaignRuns: number;
}

export interface FuzzPlan {
  target: string;
  resource: ResourceMode;
  seed: number;
  /** Schedules this search tries (its shard's), or undefined: until the time limit. */
  runs: number | undefined;
  /** Index of its first run (a shard's range starts there). */
  from: number;
  part: ShardPart | null;
  /** Runs on real servers: each run takes seconds, and shrinking minutes. */
  real: boolean;
}

/** What `fuzzCampaign` found: the runner's result, and where a counterexample was saved. */
export interface FuzzCampaign {
  plan: FuzzPlan;
  result: FuzzResult;
  saved: {
    dir: string | null;
    /** The command that replays it. */
    replay: string;
    /** Real targets: the failing run as found, before shrinking (fuzz-real runs differ each time). */
    asFound: string | null;
    original: ScheduleSize;
    minimal: ScheduleSize;
  } | null;
}

export interface Counterexample {
  foundAtRun: number;
  /** The minimal schedule and what it did. */
  schedule: Schedule;
  ops: Op[];
  verdicts: Verdict[];
  /** Where it was saved (schedule.json, history.jsonl, verdict.json, report.html), if it was. */
  dir: string | null;
  /** Real targets: where the failing run as found (before shrinking) was saved, if it was kept. */
  asFound: string | null;
  /** The command that replays it. */
  replay: string;
  /** The counterexample as a human timeline, one line per event. */
  timeline: string[];
  /** How it was shrunk (see FuzzCounterexample.shrink in src/runner/fuzz.ts). */
  shrink: FuzzCounterexample["shrink"];
  /** Real targets: shrinking stopped at its budget, so a smaller schedule may still fail. */
  budgetExhausted: boolean;
}

export interface FuzzReport {
  kind: "fuzz";
  target: string;
  resource: ResourceMode;
  seed: number;
  runs: number;
  elapsedMs: number;
  /** True if the time limit ended the search. */
  interrupted: boolean;
  /** True if a safety checker found a violation. */
  violation: boolean;
  /** Combined verdict of the counterexample, or true when none was found. */
  valid: Validity;
  counterexample: Counterexample | null;
}

/**
 * The runner's options for what fuzz() and `lockcheck fuzz` both say: most clients,
 * whether to shrink, and the timing margin (0: none).
 */
function searchOptions(o: Pick<FuzzOptions, "clients" | "shrink" | "marginMs">) {
  return {
    ...(o.clients === undefined
      ? {}
      : { workload: { maxClients: o.clients }, faultBounds: { maxClients: o.clients } }),
    ...(o.shrink === false ? { shrink: false as const, fcShrink: { maxRuns: 0 } } : {}),
    ...(o.marginMs === undefined ? {} : { marginMs: o.marginMs > 0 ? o.marginMs : (false as const) }),
  };
}

/** Where a real campaign's servers run: docker options only with docker. */
function placementOf(o: Pick<FuzzOptions, "cluster" | "docker">): ServerPlacement {
  if (o.cluster !== "docker") return {};
  return { cluster: "docker", ...(o.docker === undefined ? {} : { docker: o.docker }) };
}

/** How a real campaign's servers run and its partitions act. */
function realOptions(o: FuzzOptions): NonNullable<RunnerFuzzOptions["real"]> {
  return {
    ...placementOf(o),
    ...(o.partitionMode === undefined ? {} : { partitionMode: o.partitionMode }),
    ...(o.workers === undefined ? {} : { parallel: o.workers }),
  };
}

/**
 * The search `lockcheck fuzz` and `fuzz()` both run: bad options are an InputError value; a
 * failure of lockcheck itself is `result.error`; a counterexample is saved (unless
 * `save: false`) before this returns.
 */
export async function fuzzCampaign(o: FuzzOptions): Promise<Result<FuzzCampaign, InputError>> {
  const field = {
    target: "target",
    real: "real",
    resource: "resource",
    shard: "shard",
    runMs: "runMs",
    cluster: "cluster",
    partitionMode: "partitionMode",
    shrinkTimeLimitMs: "shrinkTimeLimitMs",
    ...o.fieldNames,
  };
  const target = await targetFrom(o.target, field.target, o.real === true, field.real);
  if (!target.ok) return target;
  if (o.shard !== undefined && o.runs === undefined && o.timeLimitMs !== undefined)
    return err({
      field: field.shard,
      message: "needs --runs: the shards split that many schedules between them",
    });
  const real = target.value.openSession !== undefined;
  if (
    !real &&
    (o.runMs !== undefined ||
      (o.cluster ?? "process") !== "process" ||
      o.partitionMode !== undefined ||
      o.shrinkTimeLimitMs !== undefined)
  ) {
    return err({
      field:
        o.runMs !== undefined
          ? field.runMs
          : o.partitionMode !== undefined
            ? field.partitionMode
            : o.shrinkTimeLimitMs !== undefined
              ? field.shrinkTimeLimitMs
              : field.cluster,
      message: `only for real targets (redis:…, etcd:…); ${target.value.name} runs in the simulator`,
    });
  }
  if (o.shrinkTimeLimitMs !== undefined && o.shrink === false)
    return err({ field: field.shrinkTimeLimitMs, message: "says how long to shrink, but shrinking is off" });
  const resource = o.resource ?? target.value.resources[0];
  const supported = supportedResource(target.value, resource, field.resource);
  if (!supported.ok) return supported;
  const seed = o.seed ?? randomInt(0, 0x7fffffff);
  const campaignRuns = o.runs ?? (o.timeLimitMs === undefined ? 1000 : undefined);
  const part: ShardPart | null =
    o.shard === undefined || campaignRuns === undefined
      ? null
      : { shard: o.shard, range: shardRange(o.shard, campaignRuns), campaignRuns };
  const range = part?.range ?? null;
  const runs = range === null ? campaignRuns : range.to - range.from;
  const plan: FuzzPlan = {
    target: target.value.name,
    resource,
    seed,
    runs,
    from: range?.from ?? 0,
    part,
    real,
  };
  o.onStart?.(plan);
  const options = o.runMs === undefined ? o.options : { ...o.options, horizonMs: o.runMs };
  const asFound = asFoundKeeper(target.value, seed, o);
  const folderOf = counterexampleFolder(target.value, seed, o);
  let foundAtRun = 0;
  const result = await fuzzOnCores(
    {
      target: target.value,
      resource,
      seed,
      faults: o.faults ?? DEFAULT_FAULT_CATEGORIES,
      ...(runs === undefined ? {} : { runs }),
      ...(range === null ? {} : { startAt: range.from }),
      ...(o.timeLimitMs === undefined ? {} : { timeLimitMs: o.timeLimitMs }),
      ...(options === undefined ? {} : { options }),
      ...searchOptions(o),
      // Given, only the time bounds the real shrink (the pass's own most runs are far more).
      ...(o.shrinkTimeLimitMs === undefined ? {} : { shrink: { timeLimitMs: o.shrinkTimeLimitMs } }),
      ...(real ? { real: realOptions(o) } : {}),
      ...(o.onProgress === undefined ? {} : { onProgress: o.onProgress }),
      onFound: (f) => {
        foundAtRun = f.foundAtRun;
        return asFound.save(f);
      },
      // Minutes apart on real servers: each smaller failure is on disk as soon as it is kept.
      onSmaller: async (smaller, run, shrinkLog) => {
        const dir = await folderOf(foundAtRun);
        if (dir === null) return;
        const r = await saveReplayableRun(
          dir,
          { schedule: smaller, ...run, shrinkLog },
          replayCommand(dir, placementOf(o)),
        ).catch(() => null);
        if (r?.ok === true) o.onSmallerSaved?.(dir, scheduleSize(smaller));
      },
    },
    o.workers ?? 1,
  );
  const ce = result.counterexample;
  if (result.error !== null || ce === null) return ok({ plan, result, saved: null });
  const dir = await folderOf(ce.foundAtRun);
  // A module target's saved schedule records the module's path: replay finds it from any folder.
  const replay =
    dir === null
      ? `lockcheck fuzz --target ${typeof o.target === "string" ? o.target : result.target} --resource ${resource} --seed ${seed} --runs ${ce.foundAtRun}`
      : replayCommand(dir, placementOf(o));
  if (dir !== null) {
    const saved = await saveReplayableRun(dir, ce, replay);
    if (!saved.ok) return saved;
  }
  const kept = await asFound.settle(ce);
  return ok({
    plan,
    result,
    saved: {
      dir,
      replay,
      asFound: kept,
      original: scheduleSize(ce.original),
      minimal: scheduleSize(ce.schedule),
    },
  });
}

/**
 * The folder of the campaign's counterexample (null: saving is off), chosen once, when it is
 * first asked for: at the end, or on real servers as soon as shrinking keeps a smaller
 * failure, which is saved there at once.
 */
function counterexampleFolder(
  target: Target,
  seed: number,
  o: Pick<FuzzOptions, "save" | "shrink">,
): (foundAtRun: number) => Promise<string | null> {
  let chosen: Promise<string | null> | undefined;
  const choose = async (foundAtRun: number): Promise<string | null> => {
    if (o.save === false) return null;
    if (o.save !== undefined) return o.save;
    // Unshrunk, it goes beside the shrunk one of the same run rather than over it.
    const defaultDir = defaultRunDir(target.name, seed, foundAtRun) + (o.shrink === false ? "-unshrunk" : "");
    // On real servers a campaign differs from one try to the next: keep counterexamples saved before.
    return target.deterministic ? defaultDir : unusedRunDir(defaultDir);
  };
  return (foundAtRun) => {
    chosen ??= choose(foundAtRun);
    return chosen;
  };
}

/**
 * The failing run as found, saved the moment the search finds it (before shrinking) in
 * `<dir>-unshrunk` (the folder `--no-shrink` would save), or `-unshrunk-2`, … if that one is
 * taken: a shrink that is interrupted or crashes, minutes into its real runs, loses nothing.
 * In the simulator the same seed and run number make it again, so once the shrunk
 * counterexample is saved the folder is removed; a real run as found is the only record of
 * that run, and is kept.
 */
function asFoundKeeper(
  target: Target,
  seed: number,
  o: Pick<FuzzOptions, "save" | "shrink" | "onFound" | "cluster" | "docker">,
): {
  save(f: FoundViolation): Promise<void>;
  settle(ce: FuzzCounterexample): Promise<string | null>;
} {
  let saved: string | null = null;
  return {
    async save(f) {
      if (o.save !== false && o.shrink !== false) {
        // Never over a folder that is there: it is the user's (an earlier run's).
        const dir = await unusedRunDir(
          `${o.save ?? defaultRunDir(target.name, seed, f.foundAtRun)}-unshrunk`,
        );
        // A failure here shows in the final save to the folder beside it, if that fails too.
        const r = await saveReplayableRun(dir, f, replayCommand(dir, placementOf(o))).catch(() => null);
        if (r?.ok === true) saved = dir;
      }
      o.onFound?.({ foundAtRun: f.foundAtRun, dir: saved });
    },
    /** After the final save: the folder kept, or null. */
    async settle(ce) {
      if (saved === null) return null;
      // Kept only for a real run that shrinking changed (not-kept: the final folder has it).
      if (!target.deterministic && ce.shrink !== "not-kept") return saved;
      await rm(saved, { recursive: true, force: true });
      return null;
    },
  };
}

/** Rejects with a LockcheckInputError on bad options, and with an Error if lockcheck itself fails. */
export async function fuzz(o: FuzzOptions): Promise<FuzzReport> {
  const campaign = await fuzzCampaign(o);
  if (!campaign.ok) throw new LockcheckInputError("fuzz", [campaign.error]);
  const { plan, result, saved } = campaign.value;
  if (result.error !== null)
    throw new Error(`fuzz: lockcheck failed on ${plan.target}: ${result.error.message}`);
  const base = {
    kind: "fuzz" as const,
    target: result.target,
    resource: result.resource,
    seed: plan.seed,
    runs: result.runs - plan.from,
    elapsedMs: result.elapsedMs,
    interrupted: result.interrupted,
  };
  const ce = result.counterexample;
  if (ce === null || saved === null) return { ...base, violation: false, valid: true, counterexample: null };
  return {
    ...base,
    violation: true,
    valid: combineValidity(ce.verdicts.map((v) => v.valid)),
    counterexample: {
      foundAtRun: ce.foundAtRun,
      schedule: ce.schedule,
      ops: ce.ops,
      verdicts: ce.verdicts,
      dir: saved.dir,
      asFound: saved.asFound,
      replay: saved.replay,
      timeline: formatTimeline(ce.ops, ce.verdicts, { colors: colorsFor({ isTTY: false }) }),
      shrink: ce.shrink,
      budgetExhausted: ce.budgetExhausted === true,
    },
  };
}
