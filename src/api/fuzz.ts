/**
 * `fuzz(options)`: the library form of `lockcheck fuzz`. Searches for a schedule that makes
 * the target violate safety; on a violation, shrinks it, saves the run folder (unless
 * `save: false`) and returns the minimal counterexample with the command that replays it.
 */
import { randomInt } from "node:crypto";
import { combineValidity, type Validity, type Verdict } from "../checkers/verdict.js";
import { FAULT_CATEGORIES, type FaultCategory } from "../generators/bounds.js";
import type { Op } from "../history/op.js";
import { colorsFor } from "../report/colors.js";
import { formatTimeline } from "../report/console-timeline.js";
import { formatInputError } from "../result.js";
import type { FuzzCounterexample, FuzzProgress } from "../runner/fuzz.js";
import { defaultRunDir, replayCommand, saveReplayableRun } from "../runner/run-folder.js";
import { fuzzOnCores } from "../runner/workers/fuzz-parallel.js";
import type { ResourceMode, Schedule, ScheduleOptions } from "../schedule/schedule.js";
import { supportedResource } from "../targets/target.js";
import { LockcheckInputError, type TargetArg, targetFrom } from "./target-arg.js";

export interface FuzzOptions {
  /** "sim:redlock", "module:./my-lock.js", a Target, a LockAlgorithm or a PlainLock. */
  target: TargetArg;
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
  /** Timing margin (ms) the shrunk counterexample keeps (default 50); 0: the bare minimum. */
  marginMs?: number;
  /** Folder to save a counterexample in (default lockcheck-out/<target>-<seed>-<run>); false: do not save. */
  save?: string | false;
  onProgress?: (p: FuzzProgress) => void;
  /**
   * Threads searching at once (default 1). Used for simulated targets given by name or module
   * (a Target or lock object made in the caller's code cannot be loaded by another thread);
   * the same seed gives the same result whatever the number.
   */
  workers?: number;
}

export interface Counterexample {
  foundAtRun: number;
  /** The minimal schedule and what it did. */
  schedule: Schedule;
  ops: Op[];
  verdicts: Verdict[];
  /** Where it was saved (schedule.json, history.jsonl, verdict.json, report.html), if it was. */
  dir: string | null;
  /** The command that replays it. */
  replay: string;
  /** The counterexample as a human timeline, one line per event. */
  timeline: string[];
  /** How it was shrunk (see FuzzCounterexample.shrink in src/runner/fuzz.ts). */
  shrink: FuzzCounterexample["shrink"];
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
 * The runner's options for what the library and the cli's flags both say: most clients,
 * whether to shrink, and the timing margin (0: none).
 */
export function searchOptions(o: Pick<FuzzOptions, "clients" | "shrink" | "marginMs">) {
  return {
    ...(o.clients === undefined
      ? {}
      : { workload: { maxClients: o.clients }, faultBounds: { maxClients: o.clients } }),
    ...(o.shrink === false ? { shrink: false as const, fcShrink: { maxRuns: 0 } } : {}),
    ...(o.marginMs === undefined ? {} : { marginMs: o.marginMs > 0 ? o.marginMs : (false as const) }),
  };
}

/** Rejects with a LockcheckInputError on bad options, and with an Error if lockcheck itself fails. */
export async function fuzz(o: FuzzOptions): Promise<FuzzReport> {
  const target = await targetFrom(o.target);
  if (!target.ok) throw new LockcheckInputError("fuzz", [target.error]);
  const resource = o.resource ?? target.value.resources[0];
  const supported = supportedResource(target.value, resource, "resource");
  if (!supported.ok) throw new LockcheckInputError("fuzz", [supported.error]);
  const seed = o.seed ?? randomInt(0, 0x7fffffff);
  const result = await fuzzOnCores(
    {
      target: target.value,
      resource,
      seed,
      faults: o.faults ?? FAULT_CATEGORIES,
      ...(o.runs === undefined ? {} : { runs: o.runs }),
      ...(o.timeLimitMs === undefined ? {} : { timeLimitMs: o.timeLimitMs }),
      ...(o.options === undefined ? {} : { options: o.options }),
      ...searchOptions(o),
      ...(o.onProgress === undefined ? {} : { onProgress: o.onProgress }),
    },
    o.workers ?? 1,
  );
  if (result.error !== null)
    throw new Error(`fuzz: lockcheck failed on ${target.value.name}: ${result.error.message}`);
  const base = {
    kind: "fuzz" as const,
    target: result.target,
    resource: result.resource,
    seed,
    runs: result.runs,
    elapsedMs: result.elapsedMs,
    interrupted: result.interrupted,
  };
  const ce = result.counterexample;
  if (ce === null) return { ...base, violation: false, valid: true, counterexample: null };

  const dir = o.save === false ? null : (o.save ?? defaultRunDir(result.target, seed, ce.foundAtRun));
  // A module target's saved schedule records the module's path: replay finds it from any folder.
  const replay =
    dir === null
      ? `lockcheck fuzz --target ${typeof o.target === "string" ? o.target : result.target} --resource ${resource} --seed ${seed} --runs ${ce.foundAtRun}`
      : replayCommand(dir);
  if (dir !== null) {
    const saved = await saveReplayableRun(dir, ce, replay);
    if (!saved.ok) throw new Error(`fuzz: cannot save the counterexample: ${formatInputError(saved.error)}`);
  }
  return {
    ...base,
    violation: true,
    valid: combineValidity(ce.verdicts.map((v) => v.valid)),
    counterexample: {
      foundAtRun: ce.foundAtRun,
      schedule: ce.schedule,
      ops: ce.ops,
      verdicts: ce.verdicts,
      dir,
      replay,
      timeline: formatTimeline(ce.ops, ce.verdicts, { colors: colorsFor({ isTTY: false }) }),
      shrink: ce.shrink,
    },
  };
}
