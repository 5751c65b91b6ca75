/**
 * `lockcheck replay <schedule.json|run-folder>`: runs a saved schedule again and prints the
 * verdict of every checker. Exits like `check`: 0 valid, 1 violation, 2 unknown or bad input.
 * `--twice` runs it twice and fails (exit 1) if the two histories differ. `--runs n` (real
 * targets) runs it n times and says in how many the violation came back: exit 1 if it did in
 * any.
 */
import { Command } from "commander";
import { type RunOutcome, replayRun } from "../../api/replay.js";
import type { Verdict } from "../../api/types.js";
import { colorsFor } from "../../report/colors.js";
import { formatTimeline } from "../../report/console-timeline.js";
import { exitCodeOf, printInputError } from "../errors.js";
import { positiveIntArg } from "../flags.js";
import { onInterrupt } from "../interrupt.js";
import { addPlacementOptions, type PlacementFlags, parsePlacementFlags } from "../placement-flags.js";

interface ReplayFlags extends PlacementFlags {
  twice?: boolean;
  runs?: number;
  target?: string;
  timeline?: boolean;
  json?: boolean;
}

export function replayCommand(): Command {
  const command = new Command("replay")
    .description(
      "run a saved schedule again and check its history (exit 0 valid, 1 violation, 2 unknown/bad input)",
    )
    .argument("<schedule>", "a schedule.json, or a run folder that holds one")
    .option("--twice", "run it twice and fail if the two histories differ")
    .option(
      "--runs <n>",
      "real targets: run it n times, on servers cleaned between runs, and count the runs that fail again (exit 1 if any did): one passing run on real servers proves little",
      positiveIntArg("--runs"),
    )
    .option("--target <name>", "run on this target instead of the schedule's own (e.g. redis:lease)");
  return addPlacementOptions(
    command,
    "real targets: where servers run: process (local processes) or docker (containers)",
    "process",
  )
    .option("--timeline", "print the history as a timeline")
    .option("--json", "print the verdicts as JSON on stdout")
    .action(async (path: string, flags: ReplayFlags) => {
      process.exitCode = await runReplay(path, flags);
    });
}

/**
 * Anomalies printed per checker. A run of seconds on real servers can have dozens, most of them
 * the same stale holder writing on; the first few tell the story, the rest are counted.
 */
export const SHOWN_ANOMALIES = 3;

/** One line per checker and its first anomalies; `allIn` says where the rest are listed. */
export function formatVerdictLines(
  verdicts: readonly Verdict[],
  c = colorsFor(process.stdout),
  allIn = "--json",
): string[] {
  const lines: string[] = [];
  for (const v of verdicts) {
    const mark =
      v.valid === true ? c.green("valid") : v.valid === false ? c.red("INVALID") : c.yellow("unknown");
    lines.push(`${v.checker.padEnd(18)} ${mark}`);
    for (const a of v.anomalies.slice(0, SHOWN_ANOMALIES)) lines.push(`  ${c.red(a.kind)}: ${a.explanation}`);
    const hidden = v.anomalies.length - SHOWN_ANOMALIES;
    if (hidden > 0) lines.push(`  … and ${hidden} more (all ${v.anomalies.length} in ${allIn})`);
  }
  return lines;
}

/** "stale-write in 3 of 5 runs", or "no violation in 5 runs". */
export function formatOutcomes(outcomes: readonly RunOutcome[]): string {
  const counts = new Map<string, number>();
  for (const o of outcomes)
    if (o.violation !== null) counts.set(o.violation, (counts.get(o.violation) ?? 0) + 1);
  const failed = outcomes.filter((o) => o.violation !== null).length;
  if (failed === 0) return `no violation in ${outcomes.length} runs`;
  const kinds = [...counts].map(([kind, n]) => (counts.size === 1 ? kind : `${kind} ${n}`)).join(", ");
  return `violation in ${failed} of ${outcomes.length} runs (${kinds})`;
}

/** One line a run: "run 2 of 5: stale-write" or "run 2 of 5: valid". */
function outcomeLine(n: number, of: number, o: RunOutcome, c = colorsFor(process.stderr)): string {
  const what =
    o.violation !== null ? c.red(o.violation) : o.valid === true ? c.green("valid") : c.yellow("unknown");
  return `run ${n} of ${of}: ${what}`;
}

async function runReplay(path: string, flags: ReplayFlags): Promise<number> {
  const placement = parsePlacementFlags(flags, (line) => {
    if (flags.json !== true) process.stderr.write(`${line}\n`);
  });
  if (!placement.ok) return printInputError(placement.error);
  const runs = flags.runs ?? 1;
  const done: RunOutcome[] = [];
  const stopWatching =
    runs > 1
      ? onInterrupt(
          () => [`interrupted after ${done.length} of ${runs} runs: ${formatOutcomes(done)}`],
          flags.json === true ? (signal) => ({ interrupted: signal, runs: done }) : undefined,
        )
      : () => {};
  const replayed = await replayRun(path, {
    twice: flags.twice === true,
    runs,
    ...placement.value,
    ...(flags.target === undefined ? {} : { target: flags.target }),
    onRun: (n, outcome) => {
      done.push(outcome);
      if (runs > 1 && flags.json !== true) process.stderr.write(`${outcomeLine(n, runs, outcome)}\n`);
    },
  });
  stopWatching();
  if (!replayed.ok) return printInputError(replayed.error);
  const { run, difference, valid, outcomes } = replayed.value;
  const code = difference !== null || outcomes.some((o) => o.violation !== null) ? 1 : exitCodeOf(valid);
  if (flags.json === true) {
    process.stdout.write(
      `${JSON.stringify({ valid, verdicts: run.verdicts, ops: run.ops.length, difference, ...(runs > 1 ? { runs: outcomes } : {}) })}\n`,
    );
    return code;
  }
  const c = colorsFor(process.stdout);
  const out: string[] = [];
  if (flags.timeline === true) out.push(...formatTimeline(run.ops, run.verdicts, { colors: c }), "");
  const which =
    runs === 1
      ? ""
      : outcomes.some((o) => o.violation !== null)
        ? " (the first run that failed)"
        : " (the last run)";
  out.push(
    `${run.schedule.target} (${run.schedule.resource}), seed ${run.schedule.seed}: ${run.ops.length} ops${which}`,
  );
  out.push(...formatVerdictLines(run.verdicts, c));
  if (runs > 1) {
    const summary = formatOutcomes(outcomes);
    out.push(outcomes.some((o) => o.violation !== null) ? c.red(summary) : c.green(summary));
  }
  if (flags.twice === true) {
    out.push(
      difference === null
        ? c.green("ran twice: identical histories")
        : c.red(
            `ran twice: histories differ at op ${difference.index}:\n  first:  ${difference.first}\n  second: ${difference.second}`,
          ),
    );
  }
  process.stdout.write(`${out.join("\n")}\n`);
  return code;
}
