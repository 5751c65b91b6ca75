/**
 * `shrinkFailing(target, schedule, options)`: what `lockcheck shrink` does between reading its
 * flags and printing: look for the schedule's failure (on a real target, up to `runs` times,
 * each run ending at its first violation), shrink it to the fewest clients, cycles and faults
 * that still show the same kind of violation, and run the result once more to show it. In the
 * simulator it keeps timing margins (runner/robust-failure.ts) unless `marginMs` is 0; on a
 * real target it shrinks in the simulator twin first and confirms on real servers, or shrinks
 * with repeated real runs (runner/shrink-real.ts).
 */
import { checkOps, SAFETY_CHECKERS } from "../checkers/index.js";
import type { Verdict } from "../checkers/verdict.js";
import type { Op } from "../history/op.js";
import type { ShrinkLog } from "../report/shrink-log.js";
import { err, type InputError, ok, type Result } from "../result.js";
import { type CheckedRun, isViolation, runAndCheck, runAndCheckOn } from "../runner/execute.js";
import { defaultRunDir, replayCommand, saveReplayableRun, unusedRunDir } from "../runner/run-folder.js";
import { probeOf, probeViolation, type ViolationKind, violationKind } from "../runner/same-violation.js";
import { type ScheduleSize, scheduleSize } from "../runner/schedule-size.js";
import { openSessionPool, runOnPool, type SessionPool, sessionOptionsFor } from "../runner/session-pool.js";
import { type ShrinkBudget, shrinkSchedule } from "../runner/shrink/shrink.js";
import { REAL_PARALLEL, shrinkOnRealServers } from "../runner/shrink/shrink-real.js";
import { shrinkRobustly } from "../runner/shrink/shrink-robust.js";
import type { Schedule } from "../schedule/schedule.js";
import { findTarget } from "../targets/index.js";
import type { ServerPlacement, Target } from "../targets/target.js";
import { finishingLine } from "./finishing-steps.js";
import { loadScheduleArg } from "./schedule-arg.js";

export { REAL_PARALLEL } from "../runner/shrink/shrink-real.js";

/** Default wall-clock limit of shrinking on real servers (without `timeLimitMs`). */
export const REAL_TIME_LIMIT_MS = 120_000;

export interface ShrinkFailingOptions {
  /** Most candidate runs. */
  maxRuns: number;
  /** Stop shrinking after this long (real targets: default REAL_TIME_LIMIT_MS). */
  timeLimitMs?: number;
  /** Real targets: runs per candidate (and tries to find the input's failure). */
  runs: number;
  /** Real targets: failing runs (of `runs`) a candidate needs; default all. */
  need?: number;
  /** Real targets: candidates run at once (default REAL_PARALLEL). */
  parallel?: number;
  /** Timing margin (ms) a shrunk schedule keeps; 0: the bare minimum. */
  marginMs: number;
  /** Real targets: shrink in the simulator twin first. */
  simFirst: boolean;
  /** Real targets: where the servers run (default: local processes). */
  cluster?: ServerPlacement["cluster"];
  docker?: ServerPlacement["docker"];
  /** Called once the failure is found, before shrinking starts. */
  onShrinkStart?: () => void;
  /** Called after each candidate run. */
  onRun?: () => void;
  /** Real targets: each smaller schedule kept, with a failing run of it (see RealShrinkOptions). */
  onSmaller?: (s: Schedule, run: { ops: Op[]; verdicts: Verdict[] }, log: ShrinkLog) => Promise<void>;
}

export type ShrinkFailingResult =
  /** The schedule did not fail (in `tries` runs). */
  | { kind: "passes"; tries: number }
  /** It failed, but no schedule could be shown to fail again; why. */
  | {
      kind: "not-kept";
      reason: string;
      /** Real targets: what shrinking ran on real servers (nothing is saved: shown instead). */
      shrinkLog?: ShrinkLog;
    }
  /** Real targets: the servers (or containers) could not start; why. */
  | { kind: "cannot-run"; reason: string }
  | {
      kind: "shrunk";
      schedule: Schedule;
      /** A failing run of `schedule`. */
      run: { ops: Op[]; verdicts: Verdict[] };
      runs: number;
      budgetExhausted: boolean;
      /** How it was shrunk: a line, and one more on the last steps of shrinking on real servers. */
      note: string;
      /** Real targets: every candidate run on real servers (saved as shrink-log.txt). */
      shrinkLog?: ShrinkLog;
    };

export async function shrinkFailing(
  target: Target,
  schedule: Schedule,
  o: ShrinkFailingOptions,
): Promise<ShrinkFailingResult> {
  if (target.deterministic) return shrinkFound(target, schedule, o, null);
  // Servers started once, for the input's runs and every candidate (`parallel` at a time).
  const opened = await openSessionPool(target, sessionOptionsFor(schedule, o), o.parallel ?? REAL_PARALLEL);
  if (!opened.ok) return { kind: "cannot-run", reason: opened.error };
  const pool = opened.value;
  try {
    return await shrinkFound(target, schedule, o, pool);
  } finally {
    await pool?.close();
  }
}

/**
 * A run of the input, to find its failure. On a pool's servers it ends at its first safety
 * violation: what comes after it would only cost time (a saved real run may last a minute).
 */
async function runInput(target: Target, schedule: Schedule, pool: SessionPool | null): Promise<CheckedRun> {
  if (pool === null) return runAndCheck(target, schedule);
  return pool.use((session) =>
    runAndCheckOn(session, schedule, (sofar) => isViolation(checkOps(sofar, SAFETY_CHECKERS))),
  );
}

async function shrinkFound(
  target: Target,
  schedule: Schedule,
  o: ShrinkFailingOptions,
  pool: SessionPool | null,
): Promise<ShrinkFailingResult> {
  const real = !target.deterministic;
  // A real schedule may pass on one run and fail on the next: look for a failure `runs` times.
  const tries = real ? o.runs : 1;
  let first: CheckedRun | null = null;
  let kind: ViolationKind | null = null;
  for (let i = 0; i < tries && kind === null; i++) {
    first = await runInput(target, schedule, pool);
    kind = violationKind(first.verdicts);
  }
  if (kind === null || first === null) return { kind: "passes", tries };
  o.onShrinkStart?.();
  const budget: ShrinkBudget = {
    maxRuns: o.maxRuns,
    ...(o.timeLimitMs !== undefined
      ? { timeLimitMs: o.timeLimitMs }
      : real
        ? { timeLimitMs: REAL_TIME_LIMIT_MS }
        : {}),
  };
  const evidence = probeOf(kind, first.ops, first.verdicts).evidence;
  const onRun = o.onRun ?? (() => {});
  const shrunk = await (real
    ? shrinkReal(target, schedule, kind, o, budget, first, onRun, pool)
    : shrinkSim(target, schedule, kind, o.marginMs, budget, evidence, onRun));
  const final = shrunk.run ?? (await runInput(target, shrunk.schedule, pool));
  const notKept =
    shrunk.run === null && !isViolation(final.verdicts)
      ? "its shrunk form passed when run again"
      : shrunk.notKept;
  if (notKept !== null)
    return {
      kind: "not-kept",
      reason: notKept,
      ...(shrunk.log === undefined ? {} : { shrinkLog: shrunk.log }),
    };
  return {
    kind: "shrunk",
    schedule: shrunk.schedule,
    run: { ops: final.ops, verdicts: final.verdicts },
    runs: shrunk.runs,
    budgetExhausted: shrunk.budgetExhausted,
    note: shrunk.note,
    ...(shrunk.log === undefined ? {} : { shrinkLog: shrunk.log }),
  };
}

interface Shrunk {
  schedule: Schedule;
  /** A failing run of `schedule` (real targets: the run that confirmed it); null: run it again. */
  run: { ops: Op[]; verdicts: Verdict[] } | null;
  runs: number;
  budgetExhausted: boolean;
  /** How it was shrunk, one line. */
  note: string;
  /** Why the failure could not be kept, or null. */
  notKept: string | null;
  /** Real targets: what shrinking ran on real servers. */
  log?: ShrinkLog;
}

async function shrinkSim(
  target: Target,
  schedule: Schedule,
  kind: ViolationKind,
  marginMs: number,
  budget: ShrinkBudget,
  evidence: ReturnType<typeof probeOf>["evidence"],
  onRun: () => void,
): Promise<Shrunk> {
  if (marginMs > 0) {
    const r = await shrinkRobustly(target, schedule, kind, marginMs, budget, evidence, onRun);
    return {
      schedule: r.schedule,
      run: null,
      runs: r.runs,
      budgetExhausted: r.budgetExhausted,
      note: r.robust
        ? `timing margins ≥ ${marginMs} ms: it also fails with every pause, offset and start moved by ${marginMs} ms`
        : `no timing margins: the failure does not survive moving its timings by ${marginMs} ms, so it may not repeat on real servers`,
      notKept: null,
    };
  }
  const r = await shrinkSchedule(
    schedule,
    async (s) => {
      onRun();
      return probeViolation(target, s, kind);
    },
    budget,
    evidence,
  );
  return {
    schedule: r.schedule,
    run: null,
    runs: r.runs,
    budgetExhausted: r.budgetExhausted,
    note: "no timing margins (--margin 0)",
    notKept: null,
  };
}

function simMarginsText(margins: boolean, marginMs: number): string {
  if (margins) return `with timing margins ≥ ${marginMs} ms`;
  return marginMs === 0
    ? "to the bare minimum (--margin 0)"
    : `to the bare minimum (no version of it failed with its timings moved by ${marginMs} ms)`;
}

async function shrinkReal(
  target: Target,
  schedule: Schedule,
  kind: ViolationKind,
  o: ShrinkFailingOptions,
  budget: ShrinkBudget,
  first: CheckedRun,
  onRun: () => void,
  pool: SessionPool | null,
): Promise<Shrunk> {
  const need = o.need ?? o.runs;
  const evidence = probeOf(kind, first.ops, first.verdicts).evidence;
  const parallel = o.parallel ?? REAL_PARALLEL;
  const r = await shrinkOnRealServers(target, schedule, {
    kind,
    runs: o.runs,
    needed: need,
    marginMs: o.marginMs,
    budget,
    simFirst: o.simFirst,
    ...(evidence === undefined ? {} : { evidence }),
    onRun,
    ...(o.onSmaller === undefined ? {} : { onSmaller: o.onSmaller }),
    parallel,
    ...(pool === null ? {} : { runOnServers: runOnPool(pool) }),
  });
  const where =
    r.shrunkIn === "sim"
      ? `shrunk in the simulator (${r.simRuns} runs) ${simMarginsText(r.simMargins, o.marginMs)}, then`
      : r.shrunkIn === "real"
        ? "shrunk on real servers,"
        : "not shrunk (no smaller schedule failed often enough),";
  return {
    schedule: r.schedule,
    run: r.failingRun,
    runs: r.simRuns + r.realRuns,
    budgetExhausted: r.budgetExhausted,
    note: [
      `${where} failed on ${r.confirmed.failed} of ${r.confirmed.runs} real runs (${r.realRuns} real runs in all)`,
      finishingLine(r.finishing),
    ]
      .filter((line) => line !== null)
      .join("\n"),
    log: r.log,
    notKept:
      r.failingRun === null
        ? `neither a smaller schedule nor the input failed again on ${need} of ${o.runs} real runs (${r.realRuns} runs)`
        : null,
  };
}

export interface ShrinkFileOptions extends Omit<ShrinkFailingOptions, "onShrinkStart" | "onSmaller"> {
  /**
   * Called once the failure is found, before shrinking starts, with the target's name and
   * whether it is deterministic (the simulator) or not (real servers).
   */
  onShrinkStart?: (target: string, deterministic: boolean) => void;
  /**
   * Real targets: called each time a smaller schedule that failed on real servers has been
   * saved in the result's folder, so that an interrupted shrink keeps the smallest so far.
   */
  onSmallerSaved?: (dir: string, size: ScheduleSize) => void;
  /** Run on this target instead of the schedule's own. */
  target?: string;
  /** Run folder for the result (default lockcheck-out/<target>-<seed>-shrunk). */
  out?: string;
}

export type ShrinkFileResult =
  | Exclude<ShrinkFailingResult, { kind: "shrunk" | "cannot-run" }>
  | (Extract<ShrinkFailingResult, { kind: "shrunk" }> & {
      /** The schedule as given (on the target it ran on), and the sizes before and after. */
      input: Schedule;
      before: ScheduleSize;
      after: ScheduleSize;
      /** Where the result was saved, and the command that replays it. */
      dir: string;
      replay: string;
    });

/**
 * What `lockcheck shrink` does between its flags and its output: load the schedule (a
 * schedule.json or a run folder), shrink its failure on its target (or `target`), and save
 * a shrunk failure as a run folder with the command that replays it.
 */
export async function shrinkScheduleFile(
  path: string,
  o: ShrinkFileOptions,
): Promise<Result<ShrinkFileResult & { target: string; deterministic: boolean }, InputError>> {
  const loaded = await loadScheduleArg(path);
  if (!loaded.ok) return loaded;
  const name = o.target ?? loaded.value.target;
  const target = findTarget(name, o.target === undefined ? "target" : "--target");
  if (!target.ok) return target;
  if (target.value.deterministic && (o.cluster ?? "process") !== "process")
    return err({
      field: "--cluster",
      message: `only for real targets (redis:…, etcd:…); ${name} runs in the simulator`,
    });
  if (o.need !== undefined && o.need > o.runs)
    return err({ field: "--need", message: `${o.need} is more than --runs ${o.runs}` });
  const schedule = { ...loaded.value, target: name };
  const about = { target: name, deterministic: target.value.deterministic };
  const { onShrinkStart, onSmallerSaved, ...options } = o;
  const defaultDir = defaultRunDir(name, schedule.seed, 0).replace(/-0$/, "-shrunk");
  // Shrinking on real servers differs from one try to the next: keep earlier results.
  const dir = o.out ?? (target.value.deterministic ? defaultDir : await unusedRunDir(defaultDir));
  const replay = replayCommand(dir, target.value.deterministic ? {} : o);
  const shrunk = await shrinkFailing(target.value, schedule, {
    ...options,
    ...(onShrinkStart === undefined ? {} : { onShrinkStart: () => onShrinkStart(name, about.deterministic) }),
    // The smallest real failure so far goes to the result's folder as it is found (minutes
    // apart): an interrupted shrink keeps it. The final save below writes over it.
    onSmaller: async (smaller, run, shrinkLog) => {
      const r = await saveReplayableRun(dir, { schedule: smaller, ...run, shrinkLog }, replay).catch(
        () => null,
      );
      if (r?.ok === true) onSmallerSaved?.(dir, scheduleSize(smaller));
    },
  });
  if (shrunk.kind === "cannot-run") return err({ message: shrunk.reason });
  if (shrunk.kind !== "shrunk") return ok({ ...shrunk, ...about });
  const saved = await saveReplayableRun(
    dir,
    { schedule: shrunk.schedule, ...shrunk.run, shrinkLog: shrunk.shrinkLog },
    replay,
  );
  if (!saved.ok) return saved;
  return ok({
    ...shrunk,
    ...about,
    input: schedule,
    before: scheduleSize(schedule),
    after: scheduleSize(shrunk.schedule),
    dir,
    replay: saved.value,
  });
}
