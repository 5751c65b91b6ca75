/**
 * `lockcheck merge <results…> [--junit out.xml] [--json]`: combines the outputs of sharded
 * `lockcheck gate --shard i/n` runs — their `--json` results and/or their `--junit` files —
 * into one. With JSON results it prints the combined table and checks that the shards
 * cover 1..n once each. Exit 0 when every expectation was met, 1 otherwise, 2 on bad input.
 * The `--json` results of `lockcheck fuzz --shard i/n` merge into the campaign's result
 * (src/runner/fuzz-merge.ts): exit 1 if it found a violation, 0 if not.
 */
import { Command } from "commander";
import { writeJUnitFile } from "../../api/junit-file.js";
import { type MergedFuzz, mergeResults } from "../../api/merge.js";
import { colorsFor } from "../../report/colors.js";
import { formatGateReport } from "../../report/gate-table.js";
import { printInputError } from "../errors.js";

interface MergeFlags {
  junit?: string;
  json?: boolean;
}

export function mergeCommand(): Command {
  return new Command("merge")
    .description(
      "combine the JSON results and/or JUnit files of sharded `lockcheck gate` runs, or the JSON results of sharded `lockcheck fuzz` runs",
    )
    .argument(
      "<files...>",
      "outputs of `lockcheck gate --json` (.json) and/or `--junit` (.xml), or of `lockcheck fuzz --shard i/n --json`",
    )
    .option("--junit <file>", "write the combined JUnit XML here")
    .option("--json", "print the combined JSON result on stdout")
    .action(async (files: string[], flags: MergeFlags) => {
      process.exitCode = await runMerge(files, flags);
    });
}

async function runMerge(files: string[], flags: MergeFlags): Promise<number> {
  const outcome = await mergeResults(files, { junit: flags.junit !== undefined });
  if (!outcome.ok) return printInputError(outcome.error);
  if (outcome.value.kind === "fuzz") {
    const merged = outcome.value.merged;
    if (flags.json === true) process.stdout.write(`${JSON.stringify(merged)}\n`);
    else process.stdout.write(`${fuzzMergeText(merged)}\n`);
    return merged.violation ? 1 : 0;
  }
  const { merged, suites, failures, problems } = outcome.value;
  printInputError(problems);
  if (flags.junit !== undefined) {
    const written = await writeJUnitFile(flags.junit, suites, "lockcheck gate");
    if (!written.ok) return printInputError(written.error);
  }
  if (flags.json === true) {
    process.stdout.write(
      `${JSON.stringify(merged ?? { version: 1, shard: null, results: [], ok: failures === 0, elapsedMs: 0 })}\n`,
    );
  } else if (merged) {
    process.stdout.write(`${formatGateReport(merged, colorsFor(process.stdout)).join("\n")}\n`);
  } else {
    const total = suites.reduce((n, s) => n + s.cases.length, 0);
    process.stdout.write(`merged ${files.length} JUnit files: ${total} test cases, ${failures} failed\n`);
  }
  if (problems.length > 0) return 2;
  return failures === 0 && (merged?.ok ?? true) ? 0 : 1;
}

function fuzzMergeText(m: MergedFuzz): string {
  const c = colorsFor(process.stdout);
  const what = `${m.target} (${m.resource}), seed ${m.seed}, faults ${m.faults}, ${m.shards} shards`;
  const stop = m.interrupted ? " (a shard's time limit stopped it early)" : "";
  if (!m.violation) return `${c.green("no violation")} in ${m.runs} runs of ${what}${stop}`;
  return [
    `${c.bold(c.red("violation found"))} in run ${m.foundAtRun} of ${what}${stop}`,
    ...(m.dir === undefined ? [] : [`saved ${m.dir}/ by the shard that found it`]),
    ...(m.replay === undefined ? [] : [`replay: ${c.bold(m.replay)}`]),
  ].join("\n");
}
