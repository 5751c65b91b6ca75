/**
 * The shrink log of a counterexample shrunk on real servers: one line per candidate schedule
 * the shrink ran there, with how it differs from the schedule kept before it, how its runs went
 * and whether it was kept. Saved as `shrink-log.txt` beside the counterexample, so that a user
 * whose shrink stopped short sees what it tried and what each candidate cost.
 */
import { count } from "../util/count.js";

export const SHRINK_LOG_FILE = "shrink-log.txt";

/** The line that names a counterexample folder's shrink log. */
export function shrinkLogLine(dir: string): string {
  return `what shrinking ran on the servers, candidate by candidate: ${dir}/${SHRINK_LOG_FILE}`;
}

/** Which part of the shrink made a candidate (shrink-real.ts). */
export type ShrinkStep =
  | "twin confirmed"
  | "confirmed"
  | "pass"
  | "wider pauses"
  | "start races settled"
  | "faults aimed"
  | "replays"
  | "stepped back";

/** How one real run of a candidate went: failed with the violation, passed, or stopped early
 * because a smaller candidate of its batch had already failed (its answer was not needed). */
export type TrialRun = "failed" | "passed" | "stopped";

export interface TrialSize {
  clients: number;
  cycles: number;
  /** Clients that repeat their cycles to the horizon. */
  repeating: number;
  faults: number;
}

/** One candidate run on real servers. */
export interface ShrinkTrial {
  step: ShrinkStep;
  /** How it differs from the schedule kept before it ("3 → 2 clients; without pause client:1"). */
  change: string;
  size: TrialSize;
  runs: TrialRun[];
  /** It failed often enough, and the shrink went on from it. */
  kept: boolean;
  /** Wall-clock time of its runs (one after another). */
  ms: number;
}

/** The shrink's simulator phase, if the target has a twin and the twin failed. */
export interface TwinSummary {
  twin: string;
  candidates: number;
  size: TrialSize;
}

export interface ShrinkLog {
  target: string;
  /** A candidate is kept when `needed` of its `runs` real runs fail. */
  runs: number;
  needed: number;
  /** Candidates of the pass run at once (a batch). */
  parallel: number;
  input: TrialSize;
  twin: TwinSummary | null;
  trials: readonly ShrinkTrial[];
}

export function sizeText(z: TrialSize): string {
  const repeating = z.repeating > 0 ? ` (${z.repeating} repeating)` : "";
  return `${count(z.clients, "client")}${repeating}, ${count(z.cycles, "cycle")}, ${count(z.faults, "fault")}`;
}

const RUN_MARK: Record<TrialRun, string> = { failed: "F", passed: ".", stopped: "-" };

/** The log as text: a header, then one line per candidate, in the order they ran. */
export function formatShrinkLog(log: ShrinkLog): string {
  const kept = log.trials.filter((t) => t.kept).length;
  const lines = [
    `shrinking ${log.target} on real servers: ${log.trials.length} candidates, ${kept} kept`,
    `a candidate is kept when ${log.needed} of its ${log.runs} runs fail; runs: F failed, . passed, - stopped (a smaller candidate of its batch failed)`,
    `candidates run ${log.parallel} at a time, listed in the order they were taken: of a batch that failed, the smallest is kept`,
    `input: ${sizeText(log.input)}`,
    ...(log.twin === null
      ? []
      : [
          `simulator twin ${log.twin.twin}: ${log.twin.candidates} candidates, shrunk to ${sizeText(log.twin.size)}`,
        ]),
  ];
  const sizes = log.trials.map((t) => sizeText(t.size));
  const sizeWidth = Math.max(4, ...sizes.map((z) => z.length));
  const runsWidth = Math.max(4, ...log.trials.map((t) => t.runs.length));
  lines.push(
    "",
    `   #  ${"step".padEnd(20)} ${"runs".padEnd(runsWidth)} kept  secs  ${"size".padEnd(sizeWidth)}  change`,
  );
  log.trials.forEach((t, i) => {
    const runs = t.runs.map((r) => RUN_MARK[r]).join("");
    lines.push(
      [
        String(i + 1).padStart(4),
        `  ${t.step.padEnd(20)}`,
        ` ${runs.padEnd(runsWidth)}`,
        ` ${(t.kept ? "kept" : "").padEnd(4)}`,
        ` ${(t.ms / 1000).toFixed(1).padStart(5)}`,
        `  ${sizes[i]!.padEnd(sizeWidth)}`,
        `  ${t.change}`,
      ].join(""),
    );
  });
  return `${lines.join("\n")}\n`;
}

/**
 * The candidates (1-based, as the log numbers them) that failed on one run and passed on
 * another: the failure comes and goes on the same schedule.
 */
export function flakyTrials(log: ShrinkLog): number[] {
  const out: number[] = [];
  log.trials.forEach((t, i) => {
    if (t.runs.includes("failed") && t.runs.includes("passed")) out.push(i + 1);
  });
  return out;
}

/** Fewer clients, cycles (repeating ones counted again) or faults than `than`, and more of none. */
function smallerIn(z: TrialSize, than: TrialSize): boolean {
  const counts = (t: TrialSize) => [t.clients, t.cycles + t.repeating, t.faults];
  const a = counts(z);
  const b = counts(than);
  return a.every((n, i) => n <= b[i]!) && a.some((n, i) => n < b[i]!);
}

/**
 * What to say when the failure came and went: a candidate is kept only when `needed` of its
 * `runs` fail, so a failure that comes back one run in two keeps few. Null when no candidate
 * smaller than the result both failed and passed (a larger one could not have led further), or
 * when a candidate already needed fewer failures than runs.
 */
export function flakyAdvice(log: ShrinkLog, dir: string): string | null {
  const flaky = flakyTrials(log);
  if (flaky.length === 0 || log.needed < log.runs) return null;
  const result = log.trials.findLast((t) => t.kept)?.size ?? log.input;
  const smaller = flaky.filter((n) => smallerIn(log.trials[n - 1]!.size, result));
  if (smaller.length === 0) return null;
  const which = smaller.length > 4 ? `${smaller.slice(0, 4).join(", ")}, …` : smaller.join(", ");
  return (
    `the failure comes and goes: ${flaky.length} of ${log.trials.length} candidates failed on one run and passed on another, ${smaller.length} of them smaller than the result (#${which} in ${SHRINK_LOG_FILE}), ` +
    `and a candidate is kept only when all ${log.runs} of its runs fail; to keep one that fails 2 of 3: lockcheck shrink ${dir} --runs 3 --need 2 --time-limit 5m`
  );
}
