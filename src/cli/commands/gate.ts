/**
 * `lockcheck gate [--config lockcheck.config.json] [--junit out.xml] [--shard i/n] [--json]`:
 * the CI regression gate (see src/runner/gate/gate.ts). Prints a table per target and corpus
 * entry; exit 0 when every expectation is met, 1 when one is not, 2 on a bad config.
 */
import { writeFile } from "node:fs/promises";
import { Command, InvalidArgumentError } from "commander";
import { colorsFor } from "../../report/colors.js";
import type { Shard } from "../../report/gate-result.js";
import { formatGateReport } from "../../report/gate-table.js";
import { type Progress, startProgress } from "../../report/progress.js";
import type { InputError } from "../../result.js";
import { gateJUnitSuites, parseShard, planGate, runGate, shardItems } from "../../runner/gate/gate.js";
import { DEFAULT_CONFIG_FILES, findDefaultConfig, loadGateConfig } from "../../runner/gate/gate-config.js";
import { findCorpusEntries } from "../../runner/gate/gate-corpus.js";
import { defaultWorkers } from "../../runner/workers/pool.js";
import { printInputError } from "../errors.js";

interface GateFlags {
  config?: string;
  junit?: string;
  shard?: string;
  json?: boolean;
  quiet?: boolean;
  workers?: number;
}

function workersArg(text: string): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError("--workers must be a positive integer");
  return n;
}

export function gateCommand(): Command {
  return new Command("gate")
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
      "threads fuzzing each simulated target (default: the number of cores); same results whatever n",
      workersArg,
    )
    .action(async (flags: GateFlags) => {
      process.exitCode = await runGateCommand(flags);
    });
}

async function runGateCommand(flags: GateFlags): Promise<number> {
  const fail = (errors: InputError[]): number => printInputError(errors);
  let shard: Shard | null = null;
  if (flags.shard !== undefined) {
    const s = parseShard(flags.shard);
    if (!s.ok) return fail([s.error]);
    shard = s.value;
  }
  const path = flags.config ?? (await findDefaultConfig(process.cwd()));
  if (path === null) {
    return fail([
      { message: `no gate config: pass --config or create one of ${DEFAULT_CONFIG_FILES.join(", ")}` },
    ]);
  }
  const config = await loadGateConfig(path);
  if (!config.ok) return fail(config.error);
  const corpus = await findCorpusEntries(config.value.corpus, config.value.baseDir);
  if (!corpus.ok) return fail([corpus.error]);

  const items = shardItems(planGate(config.value, corpus.value), shard);
  const quiet = flags.quiet === true || flags.json === true;
  let progress: Progress | null = null;
  const report = await runGate(
    items,
    config.value,
    shard,
    {
      itemStart(item, position, of) {
        if (item.kind !== "target") return;
        progress = startProgress({ title: `gate ${position}/${of} ${item.name}`, quiet });
      },
      itemProgress(p) {
        progress?.update(p);
      },
      itemDone() {
        progress?.stop();
        progress = null;
      },
    },
    { workers: flags.workers ?? defaultWorkers() },
  );

  if (flags.junit !== undefined) {
    try {
      const { renderJUnit } = await import("../../report/junit.js");
      await writeFile(flags.junit, renderJUnit(gateJUnitSuites(report), "lockcheck gate"), "utf8");
    } catch (e) {
      return fail([{ file: flags.junit, message: `cannot write: ${(e as Error).message}` }]);
    }
  }
  if (flags.json === true) process.stdout.write(`${JSON.stringify(report)}\n`);
  else process.stdout.write(`${formatGateReport(report, colorsFor(process.stdout)).join("\n")}\n`);
  return report.ok ? 0 : 1;
}
