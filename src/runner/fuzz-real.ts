/**
 * `fuzz` on a real target (one with `openSession`): runs that hunt, `real.parallel` at once
 * (each on servers of its own), on servers started once and reset between runs
 * (src/real/shared-world.ts; on docker its twin, src/real/docker/shared-world.ts), until a
 * safety violation, the run budget or the time limit.
 *
 * Each run is a whole `lockcheck run`: its schedule is what `run --seed <s> --duration <d>`
 * generates for the run's own seed s (clients keep cycling, faults keep coming for the whole
 * run: src/generators/hunt.ts), so any run of a campaign can be rerun alone; it ends early once its
 * history (looked at 4 times a second) shows a violation. fast-check's integrated
 * shrinking is not used here (each candidate is a real run of seconds); a found violation is
 * shrunk by shrink-real.ts — in the simulator twin first, with timing margins, then confirmed
 * by real runs on the same servers that must fail repeatedly. The counterexample is always a
 * run that failed.
 */
import type fc from "fast-check";
import { checkOps, SAFETY_CHECKERS } from "../checkers/index.js";
import type { Verdict } from "../checkers/verdict.js";
import type { FaultCategory } from "../generators/bounds.js";
import { huntScheduleArb } from "../generators/hunt.js";
import { firstOfSeed } from "../generators/seed-sequence.js";
import type { Op } from "../history/op.js";
import type { ShrinkLog } from "../report/shrink-log.js";
import {
  type ResourceMode,
  type Schedule,
  type ScheduleOptions,
  withPartitionMode,
} from "../schedule/schedule.js";
import type { Target } from "../targets/target.js";
import type { FuzzCounterexample, FuzzOptions, FuzzProgress, FuzzResult, LibraryCrashes } from "./fuzz.js";
import { type ViolationKind, violationKind } from "./same-violation.js";
import { openSessionPool, runOnPool } from "./session-pool.js";
import { DEFAULT_MARGIN_MS } from "./shrink/robust-failure.js";
import type { ShrinkBudget } from "./shrink/shrink.js";
import { type FinishingStep, REAL_PARALLEL, shrinkFoundOnRealServers } from "./shrink/shrink-real.js";

/** Length of each run of a real fuzz campaign unless `options.horizonMs` says otherwise. */
export const REAL_FUZZ_RUN_MS = 8000;
/**
 * Budget of the greedy shrink pass on real servers (each candidate is a real run): 12
 * candidates' time, two at a time.
 */
export const REAL_SHRINK: ShrinkBudget = { maxRuns: 12 * REAL_PARALLEL, timeLimitMs: 120_000 };
const DEFAULT_RUNS = 1000;

/** The schedules `lockcheck run` generates for a real target (and each run of a real fuzz). */
export function realHuntArb(
  target: Target,
  faults: readonly FaultCategory[],
  durationMs: number,
  maxClients: number,
  resource?: ResourceMode,
  options: Partial<ScheduleOptions> = {},
): fc.Arbitrary<Schedule> {
  const scheduleOptions = { ...target.defaults, ...options, horizonMs: durationMs };
  return huntScheduleArb({
    target: target.name,
    resource: resource ?? target.resources[0],
    options: scheduleOptions,
    leaseMs: effectiveLeaseMs(target, scheduleOptions.ttlMs),
    renews: target.renews === true,
    // etcd members ignore clock faults (src/real/faults/clock.ts): aim them at clients only.
    serverClocks: target.realWorld !== "etcd",
    workload: { maxClients },
    faults: { categories: faults, leader: target.hasLeader, maxClients },
  });
}

/**
 * How long a holder frozen right after a grant or renewal can keep a real target's lock: the
 * TTL for Redis; for etcd the TTL rounded up to whole seconds (lease TTLs are seconds) plus
 * the 500 ms between two of the leader's sweeps for expired leases.
 */
export function effectiveLeaseMs(target: Target, ttlMs: number): number {
  return target.realWorld === "etcd" ? Math.max(1, Math.ceil(ttlMs / 1000)) * 1000 + 500 : ttlMs;
}

/** The seed of run `i` (0-based) of a campaign seeded `seed`. */
export function realRunSeed(seed: number, i: number): number {
  return (seed + Math.imul(i, 0x9e3779b1)) >>> 0;
}

/** The schedule of run `i`: the one `lockcheck run --seed <realRunSeed(seed, i)>` generates. */
export function realRunSchedule(arb: fc.Arbitrary<Schedule>, seed: number, i: number): Schedule {
  const s = realRunSeed(seed, i);
  const generated = firstOfSeed(arb, s);
  if (generated === undefined) throw new Error("fuzz: could not generate a schedule");
  return { ...generated, seed: s };
}

/** A failing run of the search. */
interface Found {
  schedule: Schedule;
  kind: ViolationKind;
  at: number;
  ops: Op[];
}

/** A run stops at its first violation: the rest of it would only take time. */
const violated = (ops: Op[]): boolean => violationKind(checkOps(ops, SAFETY_CHECKERS)) !== null;

export async function fuzzReal(o: FuzzOptions): Promise<FuzzResult> {
  const { target } = o;
  const started = Date.now();
  const resource = o.resource ?? target.resources[0];
  const maxClients = o.workload?.maxClients ?? o.faultBounds?.maxClients ?? 4;
  const { horizonMs = REAL_FUZZ_RUN_MS, ...options } = o.options ?? {};
  const arb = realHuntArb(target, o.faults, horizonMs, maxClients, resource, options);
  const maxRuns = o.runs ?? (o.timeLimitMs !== undefined ? Number.MAX_SAFE_INTEGER : DEFAULT_RUNS);
  const deadline = o.timeLimitMs === undefined ? Number.POSITIVE_INFINITY : started + o.timeLimitMs;
  const base = { target: target.name, resource, seed: o.seed };
  // Run indices [from, end): a shard of a campaign starts past 0. `runs` counts as the
  // sequential search does: from the campaign's start, so `from` plus the runs finished.
  const from = o.startAt ?? 0;
  const end = from + maxRuns;
  let runs = from;
  let shrinkRuns = 0;
  let phase: FuzzProgress["phase"] = "search";
  let found: Found | null = null;
  let foundAtRun = 0;
  const report = () => o.onProgress?.({ phase, runs, shrinkRuns, violations: found === null ? 0 : 1 });
  // Client processes your library ended (it threw outside a call) while searching.
  const crashes: LibraryCrashes = { runs: 0, clients: 0, first: "" };
  const noteCrashes = (lines: readonly string[] | undefined) => {
    if (lines === undefined || lines.length === 0) return;
    if (crashes.runs === 0) crashes.first = lines[0]!;
    crashes.runs++;
    crashes.clients += lines.length;
  };
  const crashSummary = () => (crashes.runs === 0 ? {} : { libraryCrashes: { ...crashes } });

  // The search runs `parallel` runs at once and shrinking two candidates at once, each on
  // servers of its own (more sessions are opened as runs overlap).
  const parallel = Math.max(1, Math.floor(o.real?.parallel ?? 1));
  const opened = await openSessionPool(
    target,
    {
      resource,
      clockFaults: o.faults.includes("clock"),
      ...(o.real?.cluster === undefined ? {} : { cluster: o.real.cluster }),
      ...(o.real?.docker === undefined ? {} : { docker: o.real.docker }),
    },
    Math.max(REAL_PARALLEL, parallel),
  );
  // Servers or containers that cannot start: the campaign's error, reported as any other.
  if (!opened.ok) {
    return {
      ...base,
      runs: from,
      elapsedMs: Date.now() - started,
      interrupted: false,
      counterexample: null,
      error: { message: opened.error, schedule: null },
    };
  }
  const sessions = opened.value;
  if (sessions === null) throw new Error(`fuzzReal: ${target.name} is not a real target`);
  let schedule: Schedule | null = null;
  try {
    // Run indices are handed out in order. Once a run fails, none starts and the runs still
    // going end early; of the runs that failed, the lowest index is the counterexample.
    let next = from;
    let stopping = false;
    const failures: (Found & { index: number })[] = [];
    const searcher = async (): Promise<void> => {
      while (!stopping && next < end && Date.now() < deadline) {
        const index = next++;
        const scheduled = withPartitionMode(realRunSchedule(arb, o.seed, index), o.real?.partitionMode);
        const run = await sessions
          .use((session) => session.run(scheduled, (ops) => stopping || violated(ops)))
          .catch((e: unknown) => {
            // The error is reported with the schedule of the run that threw.
            stopping = true;
            schedule = scheduled;
            throw e;
          });
        runs++;
        noteCrashes(run.libraryCrashes);
        const kind = violationKind(checkOps(run.ops, SAFETY_CHECKERS));
        if (kind !== null) {
          failures.push({ index, schedule: scheduled, kind, at: Date.now(), ops: run.ops });
          stopping = true;
        }
        report();
      }
    };
    // A run that throws stops the search; the runs still going end (early) before it is reported.
    const ended = await Promise.allSettled(Array.from({ length: parallel }, searcher));
    const thrown = ended.find((e) => e.status === "rejected");
    if (thrown !== undefined) throw thrown.reason;
    const first = failures.sort((a, b) => a.index - b.index)[0];
    if (first !== undefined) {
      found = first;
      foundAtRun = first.index + 1;
      schedule = first.schedule;
    }
    const interrupted = found === null && runs < end;
    if (found === null)
      return {
        ...base,
        ...crashSummary(),
        runs,
        elapsedMs: Date.now() - started,
        interrupted,
        counterexample: null,
        error: null,
      };

    // The counterexample is always a run that failed: the found one, or the last failing
    // candidate of the shrink pass (a real schedule need not fail again when rerun).
    const { kind } = found;
    let final: { ops: Op[]; verdicts: Verdict[] } = { ops: found.ops, verdicts: checkOps(found.ops) };
    await o.onFound?.({ foundAtRun, schedule: found.schedule, ...final });
    found.at = Date.now();
    let minimal = found.schedule;
    let passSteps = 0;
    let how: FuzzCounterexample["shrink"] = "off";
    let budgetExhausted = false;
    let finishing: FinishingStep[] = [];
    let shrinkLog: ShrinkLog | undefined;
    if (o.shrink !== false) {
      phase = "shrink";
      // Simulator twin first (with timing margins), then real runs on this session's servers
      // that must fail repeatedly (shrink-real.ts).
      const margin = o.marginMs === false ? 0 : (o.marginMs ?? DEFAULT_MARGIN_MS);
      const r = await shrinkFoundOnRealServers(
        target,
        { schedule: found.schedule, ...final },
        {
          kind,
          marginMs: margin,
          ...(o.realRuns === undefined ? {} : o.realRuns),
          ...(o.onSmaller === undefined ? {} : { onSmaller: o.onSmaller }),
          budget: o.shrink ?? REAL_SHRINK,
          parallel: REAL_PARALLEL,
          runOnServers: runOnPool(sessions),
          onRun: () => {
            shrinkRuns++;
            report();
          },
        },
      );
      ({
        schedule: minimal,
        run: final,
        steps: passSteps,
        how,
        budgetExhausted,
        finishing,
        log: shrinkLog,
      } = r);
    }
    return {
      ...base,
      ...crashSummary(),
      runs,
      elapsedMs: Date.now() - started,
      interrupted: false,
      counterexample: {
        foundAtRun,
        original: found.schedule,
        schedule: minimal,
        ops: final.ops,
        verdicts: final.verdicts,
        fcShrinks: 0,
        passSteps,
        shrinkRuns,
        shrinkMs: Date.now() - found.at,
        shrink: how,
        budgetExhausted,
        finishing,
        ...(shrinkLog === undefined ? {} : { shrinkLog }),
      },
      error: null,
    };
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    return {
      ...base,
      ...crashSummary(),
      runs,
      elapsedMs: Date.now() - started,
      interrupted: false,
      counterexample: null,
      error: { message, schedule },
    };
  } finally {
    await sessions.close();
  }
}
