/**
 * `lockcheck replay <schedule.json|run-folder>`: runs a saved schedule again and prints the
 * verdict of every checker. Exits like `check`: 0 valid, 1 violation, 2 unknown or bad input.
 * `--twice` runs it twice and fails (exit 1) if the two histories differ.
 */
import { Command } from "commander";
import { replayRun } from "../../api/replay.js";
import type { Verdict } from "../../api/types.js";
import { colorsFor } from "../../report/colors.js";
import { formatTimeline } from "../../report/console-timeline.js";
import { exitCodeOf, printInputError } from "../errors.js";
import { addPlacementOptions, type PlacementFlags, parsePlacementFlags } from "../placement-flags.js";

interface ReplayFlags extends PlacementFlags {
  twice?: boolean;
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

async function runReplay(path: string, flags: ReplayFlags): Promise<number> {
  const placement = parsePlacementFlags(flags, (line) => {
    if (flags.json !== true) process.stderr.write(`${line}\n`);
  });
  if (!placement.ok) return printInputError(placement.error);
  const replayed = await replayRun(path, {
    twice: flags.twice === true,
    ...placement.value,
    ...(flags.target === undefined ? {} : { target: flags.target }),
  });
  if (!replayed.ok) return printInputError(replayed.error);
  const { run, difference, valid } = replayed.value;
  const code = difference !== null ? 1 : exitCodeOf(valid);
  if (flags.json === true) {
    process.stdout.write(
      `${JSON.stringify({ valid, verdicts: run.verdicts, ops: run.ops.length, difference })}\n`,
    );
    return code;
  }
  const c = colorsFor(process.stdout);
  const out: string[] = [];
  if (flags.timeline === true) out.push(...formatTimeline(run.ops, run.verdicts, { colors: c }), "");
  out.push(
    `${run.schedule.target} (${run.schedule.resource}), seed ${run.schedule.seed}: ${run.ops.length} ops`,
  );
  out.push(...formatVerdictLines(run.verdicts, c));
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
