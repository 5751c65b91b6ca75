/**
 * `lockcheck fuzz --target sim:<lock> …`: search for a schedule that makes the target violate
 * safety; on a violation, shrink it, print the minimal counterexample as a timeline, save the
 * run folder and print the command that replays it (exit 1). Without one, print a summary
 * (exit 0). Bad input or a failure of lockcheck itself: exit 2.
 */
import { Command } from "commander";
import {
  type Cluster,
  DEFAULT_FAULT_CATEGORIES,
  DEFAULT_MARGIN_MS,
  defaultWorkers,
  FAULT_CATEGORIES,
  type FaultCategory,
  type ServerPlacement,
  targetNames,
} from "../../api/catalog.js";
import { counterexampleHeading } from "../../api/counterexample-heading.js";
import { finishingLine } from "../../api/finishing-steps.js";
import {
  type FuzzCampaign,
  type FuzzCounterexample,
  type FuzzPlan,
  type FuzzResult,
  fuzzCampaign,
  type LibraryCrashes,
  type ScheduleSize,
  type Shard,
  type ShardPart,
} from "../../api/fuzz.js";
import { placementFlags } from "../../api/replay.js";
import type { PartitionMode, ResourceMode } from "../../api/types.js";
import { type Colors, colorsFor } from "../../report/colors.js";
import { formatTimeline } from "../../report/console-timeline.js";
import { type Progress, startProgress } from "../../report/progress.js";
import { flakyAdvice, SHRINK_LOG_FILE, shrinkLogLine } from "../../report/shrink-log.js";
import { type InputError, ok, type Result } from "../../result.js";
import { count } from "../../util/count.js";
import { parseDuration } from "../../util/duration.js";
import { printInputError } from "../errors.js";
import {
  marginArg,
  parseFaultsFlag,
  parsePartitionModeFlag,
  parseResourceFlag,
  parseShardFlag,
  positiveIntArg,
  seedArg,
} from "../flags.js";
import { type InterruptSignal, onInterrupt } from "../interrupt.js";
import { addPlacementOptions, type PlacementFlags, parsePlacementFlags } from "../placement-flags.js";
import { runAgainLine, type SmallestSoFar, smallerSavedLine } from "../smallest-so-far.js";

export interface FuzzFlags extends PlacementFlags {
  target: string;
  resource?: string;
  runs?: number;
  timeLimit?: string;
  shrinkTimeLimit?: string;
  seed?: number;
  faults: string;
  clients?: number;
  out?: string;
  shrink: boolean;
  margin: number;
  quiet?: boolean;
  json?: boolean;
  workers?: number;
  shard?: string;
  /** A module's real target rather than its simulator one (resolved with --target, src/cli/main.ts). */
  real?: boolean;
  duration?: string;
  partitionMode?: string;
}

export function fuzzCommand(): Command {
  const command = new Command("fuzz")
    .description("search for schedules (workload + faults) that make a lock target accept a stale write")
    .requiredOption(
      "--target <name>",
      `what to fuzz, e.g. sim:redlock (one of: ${targetNames().join(", ")}), or module:./your-lock.mjs (docs/custom-locks.md, docs/libraries.md)`,
    )
    .option(
      "--resource <mode>",
      "how the protected resource treats tokens: unfenced, fenced or fenced-txn (default: the target's)",
    )
    .option(
      "--runs <n>",
      "schedules to try (default 1000, or unbounded with --time-limit)",
      positiveIntArg("--runs"),
    )
    .option("--time-limit <duration>", "stop searching after this long, e.g. 60s or 5m")
    .option("--seed <n>", "seed of the search (default: random, printed); same seed ⇒ same runs", seedArg)
    .option(
      "--faults <list>",
      `comma-separated fault categories: ${FAULT_CATEGORIES.join(",")} (suspend: a client paused with its clocks stopped, as a suspended VM)`,
      DEFAULT_FAULT_CATEGORIES.join(","),
    )
    .option("--clients <n>", "most clients in a schedule (default 4)", positiveIntArg("--clients"))
    .option(
      "--out <dir>",
      "run folder for a counterexample (default lockcheck-out/<target>-<seed>-<run>, with -unshrunk after it under --no-shrink)",
    )
    .option("--no-shrink", "save the first failing schedule as found")
    .option(
      "--shrink-time-limit <duration>",
      "real targets: how long shrinking the counterexample on the servers may take, e.g. 5m (default 2m, and at most 24 candidate runs)",
    )
    .option(
      "--margin <ms>",
      "timing margin the shrunk counterexample keeps, so that it also fails on real servers (0: shrink to the bare minimum)",
      marginArg,
      DEFAULT_MARGIN_MS,
    )
    .option(
      "--workers <n>",
      "threads searching at once (default: the number of cores); same seed ⇒ same result whatever n. Real targets: runs at once, each on servers of its own",
      positiveIntArg("--workers"),
    )
    .option(
      "--shard <i/n>",
      "search only the i-th of n equal ranges of the --runs schedules (one CI job each; combine with `lockcheck merge`)",
    )
    .option(
      "--real",
      "with --target module:…: fuzz your LockAlgorithm on real servers lockcheck starts (its redis:/etcd: target), not in the simulator",
    )
    .option(
      "--duration <d>",
      "real targets: length of each run, e.g. 5s (clients keep cycling, faults keep coming; default 8s)",
    );
  return addPlacementOptions(
    command,
    "real targets: where servers run: process (started once, reused by every run) or docker",
    "process",
  )
    .option(
      "--partition-mode <mode>",
      "real targets: what a two-way partition does to TCP: cut (reset; messages lost, the default) or blackhole (held until the heal); saved in every schedule",
    )
    .option("--quiet", "no progress line")
    .option("--json", "print a JSON summary on stdout instead of the human report")
    .addHelpText(
      "after",
      `
A counterexample is shrunk keeping timing margins (--margin): it must also fail with every pause,
clock jump, fault time and client start moved by the margin, so that it fails on real servers
too, not by a hair. When no version of it does, it is shrunk to the bare minimum and the report
says so. On a real target (redis:*, etcd:*) it is shrunk in the simulator twin and confirmed on
real servers, or else on real servers, each candidate kept only when it fails on 2 of 2 runs; if
nothing smaller fails again, the schedule as found is shown, with the run that failed.`,
    )
    .action(async (flags: FuzzFlags) => {
      process.exitCode = await runFuzz(flags);
    });
}

interface ParsedFlags {
  resource: ResourceMode | undefined;
  faults: FaultCategory[];
  timeLimitMs: number | undefined;
  shrinkTimeLimitMs: number | undefined;
  shard: Shard | undefined;
  /** Length of each real run (--duration). */
  runMs: number | undefined;
  placement: ServerPlacement & { cluster: Cluster };
  partitionMode: PartitionMode | undefined;
}

function parseFlags(flags: FuzzFlags, log: (line: string) => void): Result<ParsedFlags, InputError> {
  const resource = parseResourceFlag(flags.resource);
  if (!resource.ok) return resource;
  const faults = parseFaultsFlag(flags.faults);
  if (!faults.ok) return faults;
  let timeLimitMs: number | undefined;
  if (flags.timeLimit !== undefined) {
    const d = parseDuration(flags.timeLimit, "--time-limit");
    if (!d.ok) return d;
    timeLimitMs = d.value;
  }
  let shrinkTimeLimitMs: number | undefined;
  if (flags.shrinkTimeLimit !== undefined) {
    const d = parseDuration(flags.shrinkTimeLimit, "--shrink-time-limit");
    if (!d.ok) return d;
    shrinkTimeLimitMs = d.value;
  }
  let shard: Shard | undefined;
  if (flags.shard !== undefined) {
    const parsedShard = parseShardFlag(flags.shard);
    if (!parsedShard.ok) return parsedShard;
    shard = parsedShard.value;
  }
  let runMs: number | undefined;
  if (flags.duration !== undefined) {
    const d = parseDuration(flags.duration, "--duration");
    if (!d.ok) return d;
    runMs = d.value;
  }
  const placement = parsePlacementFlags(flags, log);
  if (!placement.ok) return placement;
  const partitionMode = parsePartitionModeFlag(flags.partitionMode);
  if (!partitionMode.ok) return partitionMode;
  return ok({
    resource: resource.value,
    faults: faults.value,
    timeLimitMs,
    shrinkTimeLimitMs,
    shard,
    runMs,
    placement: placement.value,
    partitionMode: partitionMode.value,
  });
}

function sizeText(z: ScheduleSize): string {
  return `${count(z.clients, "client")}, ${count(z.cycles, "lock cycle")}, ${count(z.faults, "fault")}`;
}

async function runFuzz(flags: FuzzFlags): Promise<number> {
  // Image pulls (--cluster docker) are said on stderr, as the progress line is.
  const parsed = parseFlags(flags, (line) => {
    if (flags.quiet !== true && flags.json !== true) process.stderr.write(`${line}\n`);
  });
  if (!parsed.ok) return printInputError(parsed.error);
  const { resource, faults, timeLimitMs, shrinkTimeLimitMs, shard, runMs, placement, partitionMode } =
    parsed.value;
  let progress: Progress | null = null;
  let from = 0;
  let plan: FuzzPlan | null = null;
  let searched = 0;
  let found: { foundAtRun: number; dir: string | null } | null = null;
  let smallest: SmallestSoFar | null = null;
  const started = Date.now();
  const stopListening = onInterrupt(
    () => {
      progress?.stop();
      return interruptedLines(plan, searched, found, smallest, placement);
    },
    flags.json === true
      ? (signal) => interruptedJson(plan, searched, found, smallest, Date.now() - started, signal)
      : undefined,
  );
  const campaign = await fuzzCampaign({
    // A module's target is resolved already (src/cli/main.ts): with --real, to its real one.
    target: flags.target,
    ...(flags.real === true ? { real: true } : {}),
    ...(resource === undefined ? {} : { resource }),
    ...(flags.seed === undefined ? {} : { seed: flags.seed }),
    faults,
    ...(flags.runs === undefined ? {} : { runs: flags.runs }),
    ...(timeLimitMs === undefined ? {} : { timeLimitMs }),
    ...(flags.clients === undefined ? {} : { clients: flags.clients }),
    shrink: flags.shrink,
    ...(shrinkTimeLimitMs === undefined ? {} : { shrinkTimeLimitMs }),
    marginMs: flags.margin,
    ...(flags.out === undefined ? {} : { save: flags.out }),
    workers: flags.workers ?? defaultWorkers(),
    ...(shard === undefined ? {} : { shard }),
    ...(runMs === undefined ? {} : { runMs }),
    ...placement,
    ...(partitionMode === undefined ? {} : { partitionMode }),
    fieldNames: {
      target: "--target",
      real: "--real",
      resource: "--resource",
      shard: "--shard",
      runMs: "--duration",
      cluster: "--cluster",
      partitionMode: "--partition-mode",
      shrinkTimeLimitMs: "--shrink-time-limit",
    },
    onStart: (planned) => {
      plan = planned;
      from = planned.from;
      const title = `fuzz ${plan.target} (${plan.resource}) seed ${plan.seed}${shard === undefined ? "" : ` shard ${shard.index}/${shard.count}`}`;
      progress = startProgress({
        title,
        quiet: flags.quiet === true || flags.json === true,
        ...(plan.runs === undefined ? {} : { total: plan.runs }),
      });
    },
    onProgress: (p) => {
      searched = p.runs - from;
      progress?.update({
        done: searched,
        violations: p.violations,
        shrinkRuns: p.phase === "shrink" ? p.shrinkRuns : null,
      });
    },
    onFound: (f) => {
      found = f;
      // Shrinking on real servers takes minutes: say at once where the failing run is.
      if (plan?.real === true && f.dir !== null)
        progress?.say(
          `violation found in run ${f.foundAtRun}; the run as found is saved in ${f.dir}/ — shrinking it on the servers (Ctrl-C keeps that folder)`,
        );
    },
    onSmallerSaved: (dir, size) => {
      smallest = { dir, size };
      progress?.say(smallerSavedLine(sizeText(size), dir));
    },
  }).finally(() => {
    stopListening();
    progress?.stop();
  });
  if (!campaign.ok) return printInputError(campaign.error);
  return report(campaign.value, flags);
}

/**
 * What an interrupted campaign says: how far the search got, or where the violation it found
 * is (and, on real servers, the smallest failure its shrinking kept so far).
 */
export function interruptedLines(
  plan: FuzzPlan | null,
  searched: number,
  found: { foundAtRun: number; dir: string | null } | null,
  smallest: SmallestSoFar | null = null,
  where: ServerPlacement = {},
): string[] {
  if (plan === null) return ["interrupted before the search started"];
  const what = `${plan.target} (${plan.resource}), seed ${plan.seed}`;
  if (found === null) return [`interrupted: no violation in the ${searched} runs of ${what} that finished`];
  if (smallest !== null)
    return [
      `interrupted while shrinking the violation found in run ${found.foundAtRun} of ${what}: the smallest schedule that failed so far (${sizeText(smallest.size)}) is saved in ${smallest.dir}/${found.dir === null ? "" : `, the run as found in ${found.dir}/`}`,
      runAgainLine(smallest, where),
    ];
  if (found.dir === null)
    return [
      `interrupted while shrinking the violation found in run ${found.foundAtRun} of ${what} (it was not saved)`,
    ];
  return [
    `interrupted while shrinking: the violation found in run ${found.foundAtRun} of ${what} is saved as found in ${found.dir}/`,
    `replay: lockcheck replay ${found.dir}/schedule.json${placementFlags(where)}`,
  ];
}

/**
 * What an interrupted campaign prints on stdout with --json: the summary's fields as far as
 * they are known, the signal, and where the violation found is, if one was.
 */
export function interruptedJson(
  plan: FuzzPlan | null,
  searched: number,
  found: { foundAtRun: number; dir: string | null } | null,
  smallest: SmallestSoFar | null,
  elapsedMs: number,
  signal: InterruptSignal,
) {
  return {
    ...(plan === null ? {} : { target: plan.target, resource: plan.resource, seed: plan.seed }),
    runs: searched,
    elapsedMs,
    interrupted: true,
    signal,
    violation: found !== null,
    ...(found === null
      ? {}
      : {
          foundAtRun: found.foundAtRun,
          asFound: found.dir,
          dir: smallest?.dir ?? null,
          minimal: smallest?.size ?? null,
        }),
  };
}

function report(campaign: FuzzCampaign, flags: FuzzFlags): number {
  const { result, saved } = campaign;
  const part = campaign.plan.part;
  const c = colorsFor(process.stdout);
  const tried = result.runs - (part?.range.from ?? 0);
  const perSecond = result.elapsedMs > 0 ? (tried * 1000) / result.elapsedMs : tried;
  // Real runs take seconds each: "0 runs/s" would say nothing.
  const rate = perSecond >= 10 ? Math.round(perSecond) : perSecond.toFixed(2);
  const what = `${result.target} (${result.resource}), seed ${result.seed}, faults ${flags.faults}`;
  const ofShard =
    part === null
      ? ""
      : part.range.to > part.range.from
        ? ` (shard ${part.shard.index}/${part.shard.count}: runs ${part.range.from + 1}–${part.range.to} of ${part.campaignRuns})`
        : ` (shard ${part.shard.index}/${part.shard.count}: none of the ${part.campaignRuns} runs)`;
  if (result.error !== null) {
    process.stderr.write(
      `${colorsFor(process.stderr).red("error")}: lockcheck failed while running ${what}: ${result.error.message}\n`,
    );
    if (result.error.schedule !== null)
      process.stderr.write(`schedule:\n${JSON.stringify(result.error.schedule)}\n`);
    return 2;
  }
  const ce = result.counterexample;
  if (ce === null || saved === null) {
    if (flags.json === true) {
      process.stdout.write(`${JSON.stringify({ ...summary(result, flags, part), violation: false })}\n`);
    } else {
      const stop = result.interrupted ? " (time limit reached)" : "";
      process.stdout.write(
        `${c.green("no violation")} in ${tried} runs of ${what}${ofShard}${stop} — ${rate} runs/s\n`,
      );
      for (const line of libraryCrashLines(result.libraryCrashes, tried, c))
        process.stdout.write(`${line}\n`);
    }
    return 0;
  }
  const { dir, replay } = saved;
  if (flags.json === true) {
    process.stdout.write(
      `${JSON.stringify({ ...summary(result, flags, part), violation: true, foundAtRun: ce.foundAtRun, dir, asFound: saved.asFound, replay, original: saved.original, minimal: saved.minimal, shrinkMs: ce.shrinkMs, shrinkRuns: ce.shrinkRuns, shrink: ce.shrink, ...(ce.budgetExhausted === true ? { shrinkBudgetExhausted: true } : {}), ...(ce.finishing === undefined ? {} : { shrinkFinishing: ce.finishing }), ...(ce.shrinkLog === undefined || dir === null ? {} : { shrinkLog: `${dir}/${SHRINK_LOG_FILE}` }) })}\n`,
    );
    return 1;
  }
  const out = [
    `${c.bold(c.red("violation found"))} in run ${ce.foundAtRun} of ${what}${ofShard}`,
    ...shrinkLines(ce, saved, flags, c),
    "",
    c.bold(counterexampleHeading(ce.shrink, ce.budgetExhausted)),
    ...ce.schedule.faults.map((f) => `  fault: ${JSON.stringify(f)}`),
    "",
    ...formatTimeline(ce.ops, ce.verdicts, { colors: c }),
    "",
    `saved ${dir}/ (schedule.json, history.jsonl, verdict.json, report.html)`,
    ...(ce.shrinkLog === undefined || dir === null ? [] : [shrinkLogLine(dir)]),
    ...(saved.asFound === null ? [] : [`the run as found, before shrinking: ${saved.asFound}/`]),
    `replay: ${c.bold(replay)}`,
    ...libraryCrashLines(result.libraryCrashes, tried, c),
  ];
  process.stdout.write(`${out.join("\n")}\n`);
  return 1;
}

export function shrinkLines(
  ce: FuzzCounterexample,
  sizes: { original: ScheduleSize; minimal: ScheduleSize; dir?: string | null },
  flags: FuzzFlags,
  c: ReturnType<typeof colorsFor>,
): string[] {
  const { original: o, minimal: m } = sizes;
  const took = `in ${(ce.shrinkMs / 1000).toFixed(1)} s (${ce.shrinkRuns} runs)`;
  // Nothing smaller failed: say so rather than "shrunk from N to N" (timings may still have changed).
  const shrunk =
    o.clients === m.clients && o.cycles === m.cycles && o.faults === m.faults
      ? `no smaller schedule failed: kept ${c.bold(sizeText(m))} ${took}`
      : `shrunk from ${sizeText(o)} to ${c.bold(sizeText(m))} ${took}`;
  switch (ce.shrink) {
    case "margins":
      return [`${shrunk}, keeping timing margins ≥ ${flags.margin} ms`];
    case "exact":
      return flags.margin > 0
        ? [
            `${shrunk}; no timing margins (the failure does not survive moving its timings by ${flags.margin} ms)`,
          ]
        : [shrunk];
    case "real":
      return [
        `${shrunk}, confirmed on real servers`,
        ...(ce.finishing === undefined ? [] : [finishingLine(ce.finishing)].filter((l) => l !== null)),
        ...(ce.budgetExhausted === true && sizes.dir !== undefined && sizes.dir !== null
          ? [
              `shrinking stopped at its budget, not at a minimum; to go on: lockcheck shrink ${sizes.dir} --time-limit 5m (or give fuzz --shrink-time-limit 5m)`,
            ]
          : []),
        ...(ce.shrinkLog === undefined || sizes.dir === undefined || sizes.dir === null
          ? []
          : [flakyAdvice(ce.shrinkLog, sizes.dir)].filter((l) => l !== null)),
      ];
    case "not-kept":
      return [
        `shrinking could not keep the failure: no smaller schedule failed again on real servers (${ce.shrinkRuns} runs); the schedule as found, with the run that failed:`,
      ];
    case "off":
      return ["not shrunk (--no-shrink)"];
  }
}

/** The JSON summary; a shard's also says which part of which campaign it is (for `merge`). */
/**
 * Client processes the library ended while searching: each such run tested less than it asked
 * for, and a library that ends its clients under faults is a finding of its own.
 */
export function libraryCrashLines(k: LibraryCrashes | undefined, runs: number, c: Colors): string[] {
  if (k === undefined) return [];
  const first = k.first.split("\n")[0];
  return [
    `${c.yellow("crashed by library")} in ${k.runs} of ${runs} runs (${k.clients} client process${k.clients === 1 ? "" : "es"}): your library threw outside a call, which ends the process as it would end your service; the rest of those clients' workload was not tested`,
    `  first: ${first}`,
  ];
}

function summary(r: FuzzResult, flags: FuzzFlags, part: ShardPart | null) {
  const common = {
    target: r.target,
    resource: r.resource,
    seed: r.seed,
    runs: r.runs - (part?.range.from ?? 0),
    elapsedMs: r.elapsedMs,
    interrupted: r.interrupted,
    ...(r.libraryCrashes === undefined ? {} : { libraryCrashes: r.libraryCrashes }),
  };
  if (part === null) return common;
  return {
    kind: "fuzz-shard" as const,
    ...common,
    faults: flags.faults,
    clients: flags.clients ?? null,
    shard: { index: part.shard.index, count: part.shard.count },
    campaignRuns: part.campaignRuns,
    firstRun: part.range.from + 1,
    lastRun: part.range.to,
  };
}
