/**
 * `lockcheck gate [--config lockcheck.config.json] [--junit out.xml] [--shard i/n] [--json]`:
 * the CI regression gate (see src/runner/gate/gate.ts). Prints a table per target and corpus
 * entry; exit 0 when every expectation is met, 1 when one is not, 2 on a bad config.
 */
import { Command } from "commander";
import { defaultWorkers } from "../../api/catalog.js";
import { DEFAULT_CONFIG_FILES, type GateItem, gate, interruptedJUnitWriter } from "../../api/gate.js";
import { colorsFor } from "../../report/colors.js";
import { failureText, type GateResult, type Shard } from "../../report/gate-result.js";
import { formatGateReport } from "../../report/gate-table.js";
import { type Progress, startProgress } from "../../report/progress.js";
import { printInputError } from "../errors.js";
import { parseShardFlag, positiveIntArg } from "../flags.js";
import { type InterruptSignal, onInterrupt } from "../interrupt.js";
import { addPlacementOptions, type PlacementFlags, parsePlacementFlags } from "../placement-flags.js";

interface GateFlags extends PlacementFlags {
  config?: string;
  junit?: string;
  shard?: string;
  json?: boolean;
  quiet?: boolean;
  workers?: number;
}

export function gateCommand(): Command {
  const command = new Command("gate")
    .description("CI gate: fuzz each configured target against its expectation and replay the saved corpus")
    .option(
      "--config <file>",
      `gate config (.json, .js, .mjs or .ts; default: the first of ${DEFAULT_CONFIG_FILES.join(", ")})`,
    )
    .option("--junit <file>", "also write the results as JUnit XML")
    .option(
      "--shard <i/n>",
      "run only shard i of n (deterministic split; combine the shards with `lockcheck merge`)",
    )
    .option("--json", "print the results as JSON on stdout (input for `lockcheck merge`)")
    .option("--quiet", "no progress lines")
    .option(
      "--workers <n>",
      "threads fuzzing each simulated target (default: the number of cores); same results whatever n. Real targets: runs at once, each on servers of its own",
      positiveIntArg("--workers"),
    );
  return addPlacementOptions(
    command,
    "where the servers of real targets and real corpus entries run: process or docker (containers). Default: the config's cluster, else process",
  ).action(async (flags: GateFlags) => {
    process.exitCode = await runGateCommand(flags);
  });
}

async function runGateCommand(flags: GateFlags): Promise<number> {
  let shard: Shard | null = null;
  if (flags.shard !== undefined) {
    const s = parseShardFlag(flags.shard);
    if (!s.ok) return printInputError(s.error);
    shard = s.value;
  }
  const quiet = flags.quiet === true || flags.json === true;
  // Without --cluster the config says where; gate() refuses images for local processes.
  const placement = parsePlacementFlags(
    flags,
    (line) => {
      if (!quiet) process.stderr.write(`${line}\n`);
    },
    "docker",
  );
  if (!placement.ok) return printInputError(placement.error);
  let progress: Progress | null = null;
  let running: { item: GateItem; position: number; of: number } | null = null;
  const done: GateResult[] = [];
  const writeJUnit = flags.junit === undefined ? null : await interruptedJUnitWriter(flags.junit);
  const stopListening = onInterrupt(
    () => {
      progress?.stop();
      return interruptedGateLines(
        running === null ? null : { name: running.item.name, position: running.position, of: running.of },
        done,
        writeJUnit?.(done, running?.item ?? null, shard) ?? null,
      );
    },
    flags.json === true
      ? (signal) => interruptedGateJson(running?.item.name ?? null, done, shard, signal)
      : undefined,
  );
  const report = await gate({
    ...(flags.config === undefined ? {} : { config: flags.config }),
    shard,
    workers: flags.workers ?? defaultWorkers(),
    ...(flags.cluster === undefined ? {} : { cluster: placement.value.cluster }),
    ...(placement.value.docker === undefined ? {} : { docker: placement.value.docker }),
    ...(flags.junit === undefined ? {} : { junit: flags.junit }),
    events: {
      itemStart(item, position, of) {
        running = { item, position, of };
        if (item.kind !== "target") return;
        progress = startProgress({ title: `gate ${position}/${of} ${item.name}`, quiet });
      },
      itemProgress(p) {
        progress?.update(p);
      },
      itemDone(result) {
        done.push(result);
        running = null;
        progress?.stop();
        progress = null;
      },
    },
  }).finally(stopListening);
  if (!report.ok) return printInputError(report.error);
  if (flags.json === true) process.stdout.write(`${JSON.stringify(report.value)}\n`);
  else process.stdout.write(`${formatGateReport(report.value, colorsFor(process.stdout)).join("\n")}\n`);
  return report.value.ok ? 0 : 1;
}

/**
 * What an interrupted `gate --json` prints on stdout instead of its report: one line that says
 * so, with the items that finished, so that a script (or `lockcheck merge`) does not mistake an
 * empty or partial output for a shard that passed.
 */
export interface InterruptedGate {
  kind: "gate";
  interrupted: true;
  signal: InterruptSignal;
  shard: Shard | null;
  /** The item it was on, if any. */
  running: string | null;
  /** The items that finished. */
  results: readonly GateResult[];
}

export function interruptedGateJson(
  running: string | null,
  done: readonly GateResult[],
  shard: Shard | null,
  signal: InterruptSignal,
): InterruptedGate {
  return { kind: "gate", interrupted: true, signal, shard, running, results: done };
}

/**
 * What an interrupted gate says: what it was doing, how the finished items went, and whether
 * their JUnit was written (`junit`: null when not asked for).
 */
export function interruptedGateLines(
  running: { name: string; position: number; of: number } | null,
  done: readonly GateResult[],
  junit: { file: string; error?: string } | null = null,
): string[] {
  const where =
    running === null ? "between items" : `during item ${running.position} of ${running.of} (${running.name})`;
  const failed = done.filter((r) => !r.met);
  const finished =
    done.length === 0
      ? "no item had finished"
      : `of the ${done.length} item${done.length === 1 ? "" : "s"} finished, ${failed.length} failed`;
  const written =
    junit === null
      ? "wrote no report (nor JUnit)"
      : junit.error === undefined
        ? `wrote no report; the JUnit in ${junit.file} has the finished items${running === null ? "" : " and this one as an error"}`
        : `wrote no report, and could not write the JUnit (${junit.file}: ${junit.error})`;
  return [
    `interrupted ${where}: the gate did not finish and ${written}; ${finished}`,
    ...failed.map((r) => `  FAIL ${r.name}: ${failureText(r).message}`),
  ];
}
