/**
 * `lockcheck shrink <schedule.json|run-folder>`: reduces a failing schedule (simulated or
 * real) to the fewest clients, cycles and faults that still show the same kind of violation,
 * with the world-agnostic greedy shrinker, its first candidates aimed by the failing run.
 * In the simulator it keeps timing margins (robust-failure.ts) unless `--margin 0`; on a
 * real target it shrinks in the simulator twin first and confirms on real servers, or
 * shrinks with repeated real runs (shrink-real.ts). Saves the result as a run folder and
 * prints the replay command (exit 1: the shrunk schedule still shows the violation). A
 * schedule that does not fail: exit 0, nothing saved. A failure that could not be kept (on
 * real servers, neither a smaller schedule nor the input failed again often enough): exit 3,
 * nothing saved — never a "counterexample" whose own run passed.
 */
import { Command } from "commander";
import type { ServerPlacement } from "../../api/catalog.js";
import { DEFAULT_MARGIN_MS } from "../../api/catalog.js";
import type { ScheduleSize } from "../../api/fuzz.js";
import { REAL_PARALLEL, REAL_TIME_LIMIT_MS, shrinkScheduleFile } from "../../api/shrink.js";
import { colorsFor } from "../../report/colors.js";
import { formatTimeline } from "../../report/console-timeline.js";
import { startProgress } from "../../report/progress.js";
import { flakyAdvice, formatShrinkLog, shrinkLogLine } from "../../report/shrink-log.js";
import { count } from "../../util/count.js";
import { parseDuration } from "../../util/duration.js";
import { printInputError } from "../errors.js";
import { marginArg, positiveIntArg } from "../flags.js";
import { onInterrupt } from "../interrupt.js";
import { addPlacementOptions, type PlacementFlags, parsePlacementFlags } from "../placement-flags.js";
import { runAgainLine, type SmallestSoFar, smallerSavedLine } from "../smallest-so-far.js";

interface ShrinkFlags extends PlacementFlags {
  target?: string;
  out?: string;
  maxRuns: number;
  timeLimit?: string;
  runs: number;
  need?: number;
  parallel: number;
  margin: number;
  sim: boolean;
  quiet?: boolean;
}

/** "2 clients / 4 cycles / 1 fault", as the result line counts them. */
function sizeText(z: ScheduleSize): string {
  return `${count(z.clients, "client")} / ${count(z.cycles, "cycle")} / ${count(z.faults, "fault")}`;
}

/** What an interrupted shrink says: where the smallest failure so far is, or that there is none. */
export function interruptedShrinkLines(
  input: string,
  runs: number,
  smallest: SmallestSoFar | null,
  where: ServerPlacement = {},
): string[] {
  if (smallest === null)
    return [`interrupted after ${runs} runs: no smaller schedule had failed yet; ${input} is as it was`];
  return [
    `interrupted after ${runs} runs: the smallest schedule that failed so far (${sizeText(smallest.size)}) is saved in ${smallest.dir}/`,
    runAgainLine(smallest, where),
  ];
}

/** Exit status when the input failed but no schedule could be shown to fail again. */
export const EXIT_NOT_KEPT = 3;

export function shrinkCommand(): Command {
  const command = new Command("shrink")
    .description("shrink a failing schedule to a minimal one that still fails")
    .argument("<schedule>", "a schedule.json, or a run folder that holds one")
    .option("--target <name>", "run on this target instead of the schedule's own")
    .option("--out <dir>", "run folder for the result (default lockcheck-out/<target>-<seed>-shrunk)")
    .option("--max-runs <n>", "most candidate runs", positiveIntArg("--max-runs"), 1000)
    .option(
      "--time-limit <duration>",
      `stop shrinking after this long, e.g. 60s (real targets: default ${REAL_TIME_LIMIT_MS / 1000}s, the twin, the confirmations, the last steps and the replays on real servers included: a last step whose runs would end past it is left out, and the output says so)`,
    )
    .option("--runs <n>", "real targets: runs per candidate", positiveIntArg("--runs"), 2)
    .option(
      "--need <k>",
      "real targets: failing runs (of --runs) a candidate needs (default: all)",
      positiveIntArg("--need"),
    )
    .option(
      "--parallel <n>",
      "real targets: candidates run at once, each on servers of its own (the later ones stop once an earlier one fails)",
      positiveIntArg("--parallel"),
      REAL_PARALLEL,
    )
    .option(
      "--margin <ms>",
      "timing margin a shrunk schedule must keep (it must also fail with every pause, offset and start moved by this much); 0: shrink to the bare minimum",
      marginArg,
      DEFAULT_MARGIN_MS,
    )
    .option("--no-sim", "real targets: shrink on real servers only, not in the simulator twin first");
  return addPlacementOptions(
    command,
    "real targets: where servers run: process (local processes) or docker (containers)",
    "process",
  )
    .option("--quiet", "no progress line")
    .addHelpText(
      "after",
      `
On a real target (redis:*, etcd:*) the input is run until its first violation, then shrunk in its
simulator twin (sim:lease for redis:lease, sim:consensus for etcd:lock, …) with timing margins,
and confirmed on real servers, first cut short some seconds after its violation; if the twin does
not fail or the real servers do not confirm it, it is shrunk on real servers, each candidate kept
only when it fails on --need of --runs runs. Faults the history shows never fired
(after the run ended, or recorded as unsupported/ignored) are dropped first. The result's folder
holds shrink-log.txt: each candidate run on real servers, how it differs from the schedule before
it, how each of its runs went (F failed, . passed) and whether it was kept. A candidate that both
failed and passed shows a failure that comes and goes: --runs 3 --need 2 keeps candidates that
fail 2 of 3.

Exit status: 0 the schedule does not fail (nothing to shrink, nothing saved); 1 the shrunk schedule
fails (saved); 2 bad input; ${EXIT_NOT_KEPT} the failure could not be kept: the schedule failed once but neither a
smaller schedule nor the input failed again on --need of --runs real runs (nothing saved).`,
    )
    .action(async (path: string, flags: ShrinkFlags) => {
      process.exitCode = await runShrink(path, flags);
    });
}

async function runShrink(path: string, flags: ShrinkFlags): Promise<number> {
  const placement = parsePlacementFlags(flags, (line) => {
    if (flags.quiet !== true) process.stderr.write(`${line}\n`);
  });
  if (!placement.ok) return printInputError(placement.error);
  let timeLimitMs: number | undefined;
  if (flags.timeLimit !== undefined) {
    const d = parseDuration(flags.timeLimit, "--time-limit");
    if (!d.ok) return printInputError(d.error);
    timeLimitMs = d.value;
  }
  const c = colorsFor(process.stdout);
  // The progress line starts once the failure is found, and the time shown is from then.
  let progress: ReturnType<typeof startProgress> | null = null;
  let runs = 0;
  /** Smaller failing schedules kept so far (saved as each is kept). */
  let kept = 0;
  let started = Date.now();
  let smallest: SmallestSoFar | null = null;
  const stopListening = onInterrupt(() => {
    progress?.stop();
    return interruptedShrinkLines(path, runs, smallest, placement.value);
  });
  const result = await shrinkScheduleFile(path, {
    ...(flags.target === undefined ? {} : { target: flags.target }),
    ...(flags.out === undefined ? {} : { out: flags.out }),
    maxRuns: flags.maxRuns,
    ...(timeLimitMs === undefined ? {} : { timeLimitMs }),
    runs: flags.runs,
    ...(flags.need === undefined ? {} : { need: flags.need }),
    parallel: flags.parallel,
    marginMs: flags.margin,
    simFirst: flags.sim,
    ...placement.value,
    onShrinkStart: (name, deterministic) => {
      progress = startProgress({
        title: `shrink ${name}`,
        unit: "runs",
        // Only a real shrink keeps (and saves) smaller failures as it goes.
        tally: deterministic ? null : (n) => `${n} smaller kept`,
        quiet: flags.quiet === true,
      });
      started = Date.now();
    },
    onRun: () => progress?.update({ done: ++runs, tallied: kept }),
    onSmallerSaved: (dir, size) => {
      smallest = { dir, size };
      kept++;
      progress?.say(smallerSavedLine(sizeText(size), dir));
    },
  }).finally(() => {
    stopListening();
    progress?.stop();
  });
  if (!result.ok) return printInputError(result.error);
  const shrunk = result.value;
  const name = shrunk.target;
  if (shrunk.kind === "passes") {
    const tries = shrunk.deterministic ? "" : ` in ${shrunk.tries} run${shrunk.tries === 1 ? "" : "s"}`;
    process.stdout.write(
      `${c.green("no violation")}: ${path} does not fail on ${name}${tries}; nothing to shrink, nothing saved\n`,
    );
    return 0;
  }
  if (shrunk.kind === "not-kept") {
    process.stdout.write(
      `${c.bold(c.red("could not keep the failure"))}: ${path} failed on ${name}, but ${shrunk.reason}; nothing saved\n`,
    );
    // Nothing is saved, so the log of what ran is shown here.
    if (shrunk.shrinkLog !== undefined && shrunk.shrinkLog.trials.length > 0)
      process.stdout.write(`\n${formatShrinkLog(shrunk.shrinkLog)}`);
    return EXIT_NOT_KEPT;
  }
  const { before, after, dir, replay } = shrunk;
  const sameSize =
    before.clients === after.clients && before.cycles === after.cycles && before.faults === after.faults;
  // Nothing smaller failed: say so rather than "shrunk N → N" (timings may still have changed).
  const verb = sameSize ? "no smaller schedule failed: kept" : "shrunk";
  const out = [
    `${verb} ${sizeText(before)} → ${c.bold(`${after.clients} / ${after.cycles} / ${after.faults}`)} in ${((Date.now() - started) / 1000).toFixed(1)} s (${shrunk.runs} runs${shrunk.budgetExhausted ? ", budget exhausted" : ""})`,
    shrunk.note,
    ...(shrunk.shrinkLog === undefined ? [] : [flakyAdvice(shrunk.shrinkLog, dir)].filter((l) => l !== null)),
    "",
    ...shrunk.schedule.faults.map((f) => `  fault: ${JSON.stringify(f)}`),
    "",
    ...formatTimeline(shrunk.run.ops, shrunk.run.verdicts, { colors: c }),
    "",
    `saved ${dir}/`,
    ...(shrunk.shrinkLog === undefined ? [] : [shrinkLogLine(dir)]),
    `replay: ${c.bold(replay)}`,
  ];
  process.stdout.write(`${out.join("\n")}\n`);
  return 1;
}
