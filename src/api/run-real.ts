/**
 * `realRun(ask, options)`: what `lockcheck run` does between its flags and its output: plan
 * the run (real-run-plan.ts), then `runOnRealServers(target, schedule, options)`: one
 * schedule on real servers (started by lockcheck, in Docker, or the user's
 * own), its history checked, and the run folder saved with the command that runs it again.
 */
import { checkOps } from "../checkers/index.js";
import { combineValidity, type Validity, type Verdict } from "../checkers/verdict.js";
import type { Op } from "../history/op.js";
import { undoAll } from "../real/hygiene/undo.js";
import type { RealProgress, RealRun, RealRunOptions } from "../real/run.js";
import { err, type InputError, ok, type Result } from "../result.js";
import { saveReplayableRun } from "../runner/run-folder.js";
import type { Schedule } from "../schedule/schedule.js";
import type { Target } from "../targets/target.js";
import { planRealRun, type RealRunAsk, type RealRunPlan } from "./real-run-plan.js";

export type { DockerRunOptions } from "../real/docker/world.js";
export type { RealRunAsk, RealRunPlan };

export interface RealRunRequest
  extends Pick<RealRunOptions, "outDir" | "redisServer" | "etcd" | "cluster" | "docker" | "externalServers"> {
  /** Shown in the saved report: the command that runs the schedule again. */
  rerunCommand: string;
  onProgress?: (p: RealProgress) => void;
  /** Called once the run is over, before it is checked and saved, with the world's warnings. */
  onRan?: (warnings: readonly string[]) => void;
}

export interface RealRunReport {
  ops: Op[];
  verdicts: Verdict[];
  valid: Validity;
  stats: RealRun["stats"];
  /** Clients lockcheck could not drive (RealRun.brokenClients): then "valid" means nothing. */
  brokenClients: string[];
  /** Clients your library's own uncaught error ended mid-run ("client:N"). */
  crashedByLibrary: string[];
}

export async function runOnRealServers(
  target: Target,
  schedule: Schedule,
  o: RealRunRequest,
): Promise<Result<RealRunReport, InputError>> {
  if (target.realWorld === undefined)
    return err({ field: "--target", message: `${target.name} does not run on real servers` });
  const { rerunCommand, onRan, ...options } = o;
  const { runReal } = await import("../real/run.js");
  const r = await runReal(schedule, { algorithm: target.algorithm, servers: target.realWorld }, options);
  if (!r.ok) return err({ message: r.error });
  onRan?.(r.value.warnings);
  const verdicts = checkOps(r.value.ops);
  const saved = await saveReplayableRun(o.outDir, { schedule, ops: r.value.ops, verdicts }, rerunCommand);
  if (!saved.ok) return saved;
  return ok({
    ops: r.value.ops,
    verdicts,
    valid: combineValidity(verdicts.map((v) => v.valid)),
    stats: r.value.stats,
    brokenClients: r.value.brokenClients,
    crashedByLibrary: r.value.crashedByLibrary.map((c) => c.client),
  });
}

/** Plans the run (`onPlanned` sees the plan before it starts), runs it on real servers, checks and saves it. */
export async function realRun(
  ask: Omit<RealRunAsk, "placement">,
  o: Omit<RealRunRequest, "outDir" | "rerunCommand" | "externalServers"> & {
    onPlanned?: (plan: RealRunPlan) => void;
  },
): Promise<Result<{ plan: RealRunPlan; report: RealRunReport }, InputError>> {
  const placement = {
    ...(o.cluster === undefined ? {} : { cluster: o.cluster }),
    ...(o.docker === undefined ? {} : { docker: o.docker }),
  };
  const planned = await planRealRun({ ...ask, placement });
  if (!planned.ok) return planned;
  const plan = planned.value;
  const { onPlanned, ...options } = o;
  onPlanned?.(plan);
  const report = await runOnRealServers(plan.target, plan.schedule, {
    ...options,
    outDir: plan.outDir,
    rerunCommand: plan.rerunCommand,
    ...(plan.external === null ? {} : { externalServers: plan.external.endpoints }),
  });
  if (!report.ok) return report;
  return ok({ plan, report: report.value });
}

/** How a run made several times went (`lockcheck run --attempts`). */
export interface RealAttempts {
  /** Runs made. */
  made: number;
  /** Runs asked for at most. */
  limit: number;
  /** The attempt (from 1) whose history was found invalid; the runs stop there. Null: none was. */
  failedAt: number | null;
}

/**
 * `realRun` up to `limit` times on the same schedule, stopping at the first run found invalid
 * (or whose clients could not be driven): runs on real servers are not deterministic, so this
 * says how reliably a schedule fails there. Each attempt has its own run folder: attempt k > 1
 * of an `out` folder is `<out>-attempt-<k>`; without `out`, each takes the next unused default.
 * `onAttempt` sees every attempt but the last, which is returned.
 */
export async function realRunAttempts(
  ask: Omit<RealRunAsk, "placement">,
  limit: number,
  o: Parameters<typeof realRun>[1] & {
    onAttempt?: (attempt: number, run: { plan: RealRunPlan; report: RealRunReport }) => void;
  },
): Promise<Result<{ plan: RealRunPlan; report: RealRunReport; attempts: RealAttempts }, InputError>> {
  if (!Number.isInteger(limit) || limit < 1)
    return err({ field: "--attempts", message: `expected a whole number of runs ≥ 1, got ${limit}` });
  const { onAttempt, ...options } = o;
  for (let attempt = 1; ; attempt++) {
    const out = ask.out === undefined || attempt === 1 ? ask.out : `${ask.out}-attempt-${attempt}`;
    const r = await realRun({ ...ask, ...(out === undefined ? {} : { out }) }, options);
    if (!r.ok) return r;
    const { report } = r.value;
    const failed = report.valid === false;
    if (failed || report.brokenClients.length > 0 || attempt === limit) {
      return ok({ ...r.value, attempts: { made: attempt, limit, failedAt: failed ? attempt : null } });
    }
    onAttempt?.(attempt, r.value);
  }
}

/**
 * Does now what the process's exit would do for everything real runs started: servers and
 * clients stopped, paused processes resumed, proxies closed, temp dirs removed, and a running
 * run's partial history written (src/real/hygiene/undo.ts). For a command interrupted by a
 * signal, so that it can say what it left on disk before it exits.
 */
export function undoRealWorldNow(): void {
  undoAll();
}
