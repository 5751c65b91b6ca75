/**
 * `lockcheck shrink <schedule.json|run-folder>`: reduces a failing schedule (simulated or
 * real) to the fewest clients, cycles and faults that still show the same kind of violation,
 * with the world-agnostic greedy shrinker, its first candidates aimed by the failing run. Saves the result as a run folder and prints the replay command (exit 1:
 * the shrunk schedule still shows the violation). A schedule that does not fail: exit 0.
 */
import { Command, InvalidArgumentError } from "commander";
import { colorsFor } from "../../report/colors.js";
import { startProgress } from "../../report/progress.js";
import { formatInputError, type InputError } from "../../result.js";
import { runAndCheck } from "../../runner/execute.js";
import { probeOf, probeViolation, violationKind } from "../../runner/same-violation.js";
import { defaultRunDir, saveRun } from "../../runner/save.js";
import { scheduleSize } from "../../runner/schedule-size.js";
import { shrinkSchedule } from "../../runner/shrink.js";
import { formatTimeline } from "../../runner/timeline.js";
import { findTarget } from "../../targets/index.js";
import { parseDuration } from "../../util/duration.js";
import { loadScheduleArg } from "./schedule-arg.js";

interface ShrinkFlags {
  target?: string;
  out?: string;
  maxRuns: number;
  timeLimit?: string;
  quiet?: boolean;
}

function positiveInt(text: string): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError("--max-runs must be a positive integer");
  return n;
}

export function shrinkCommand(): Command {
  return new Command("shrink")
    .description("shrink a failing schedule to a minimal one that still fails")
    .argument("<schedule>", "a schedule.json, or a run folder that holds one")
    .option("--target <name>", "run on this target instead of the schedule's own")
    .option("--out <dir>", "run folder for the result (default lockcheck-out/<target>-<seed>-shrunk)")
    .option("--max-runs <n>", "most candidate runs", positiveInt, 1000)
    .option("--time-limit <duration>", "stop shrinking after this long, e.g. 60s")
    .option("--quiet", "no progress line")
    .action(async (path: string, flags: ShrinkFlags) => {
      process.exitCode = await runShrink(path, flags);
    });
}

async function runShrink(path: string, flags: ShrinkFlags): Promise<number> {
  const errc = colorsFor(process.stderr);
  const fail = (e: InputError): number => {
    process.stderr.write(`${errc.red("error")}: ${formatInputError(e)}\n`);
    return 2;
  };
  const loaded = await loadScheduleArg(path);
  if (!loaded.ok) return fail(loaded.error);
  const name = flags.target ?? loaded.value.target;
  const target = findTarget(name, flags.target === undefined ? "target" : "--target");
  if (!target.ok) return fail(target.error);
  const schedule = { ...loaded.value, target: name };
  let timeLimitMs: number | undefined;
  if (flags.timeLimit !== undefined) {
    const d = parseDuration(flags.timeLimit, "--time-limit");
    if (!d.ok) return fail(d.error);
    timeLimitMs = d.value;
  }
  const c = colorsFor(process.stdout);
  const first = await runAndCheck(target.value, schedule);
  const kind = violationKind(first.verdicts);
  if (kind === null) {
    process.stdout.write(`${c.green("no violation")}: ${path} does not fail on ${name}; nothing to shrink\n`);
    return 0;
  }
  const progress = startProgress({ title: `shrink ${name}`, unit: "runs", quiet: flags.quiet === true });
  let runs = 0;
  const started = Date.now();
  const shrunk = await shrinkSchedule(
    schedule,
    async (s) => {
      progress.update({ done: ++runs });
      return probeViolation(target.value, s, kind);
    },
    { maxRuns: flags.maxRuns, ...(timeLimitMs === undefined ? {} : { timeLimitMs }) },
    probeOf(kind, first.ops, first.verdicts).evidence,
  ).finally(() => progress.stop());
  const final = await runAndCheck(target.value, shrunk.schedule);
  const dir = flags.out ?? defaultRunDir(name, schedule.seed, 0).replace(/-0$/, "-shrunk");
  const replay = `lockcheck replay ${dir}/schedule.json`;
  const saved = await saveRun(dir, {
    schedule: shrunk.schedule,
    ops: final.ops,
    verdicts: final.verdicts,
    replayCommand: replay,
  });
  if (!saved.ok) return fail(saved.error);
  const before = scheduleSize(schedule);
  const after = scheduleSize(shrunk.schedule);
  const out = [
    `shrunk ${before.clients} clients / ${before.cycles} cycles / ${before.faults} faults → ${c.bold(`${after.clients} / ${after.cycles} / ${after.faults}`)} in ${((Date.now() - started) / 1000).toFixed(1)} s (${shrunk.runs} runs${shrunk.budgetExhausted ? ", budget exhausted" : ""})`,
    "",
    ...shrunk.schedule.faults.map((f) => `  fault: ${JSON.stringify(f)}`),
    "",
    ...formatTimeline(final.ops, final.verdicts, { colors: c }),
    "",
    `saved ${dir}/`,
    `replay: ${c.bold(replay)}`,
  ];
  process.stdout.write(`${out.join("\n")}\n`);
  return final.violation ? 1 : 0;
}
