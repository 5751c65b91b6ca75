/**
 * `lockcheck merge <results…> [--junit out.xml] [--json]`: combines the outputs of sharded
 * `lockcheck gate --shard i/n` runs — their `--json` results and/or their `--junit` files —
 * into one. With JSON results it prints the combined table and checks that the shards
 * cover 1..n once each. Exit 0 when every expectation was met, 1 otherwise, 2 on bad input.
 * The `--json` results of `lockcheck fuzz --shard i/n` merge into the campaign's result
 * (src/runner/fuzz-merge.ts): exit 1 if it found a violation, 0 if not.
 */
import { readFile, writeFile } from "node:fs/promises";
import { Command } from "commander";
import { z } from "zod";
import { colorsFor } from "../../report/colors.js";
import type { GateReport } from "../../report/gate-result.js";
import { formatGateReport } from "../../report/gate-table.js";
import { type JUnitSuite, mergeJUnitSuites, parseJUnit, renderJUnit } from "../../report/junit.js";
import type { InputError } from "../../result.js";
import {
  type FuzzShardResult,
  fuzzShardProblems,
  fuzzShardSchema,
  type MergedFuzz,
  mergeFuzzShards,
} from "../../runner/fuzz-merge.js";
import { gateJUnitSuites, mergeGateReports } from "../../runner/gate/gate.js";
import { printInputError } from "../errors.js";

interface MergeFlags {
  junit?: string;
  json?: boolean;
}

const reportSchema = z.looseObject({
  version: z.literal(1),
  shard: z.object({ index: z.number().int(), count: z.number().int() }).nullable(),
  results: z.array(z.looseObject({ kind: z.enum(["target", "corpus"]), name: z.string(), met: z.boolean() })),
  ok: z.boolean(),
  elapsedMs: z.number(),
});

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

/** Problems with the set of shards: a shard missing, repeated, or from a different split. */
export function shardProblems(reports: readonly GateReport[]): string[] {
  const shards = reports.map((r) => r.shard).filter((s) => s !== null);
  if (shards.length === 0) return [];
  const counts = new Set(shards.map((s) => s.count));
  if (counts.size > 1 || shards.length !== reports.length)
    return ["the results come from different splits (--shard i/n with different n, or unsharded)"];
  const n = shards[0]!.count;
  const problems: string[] = [];
  for (let i = 1; i <= n; i++) {
    const k = shards.filter((s) => s.index === i).length;
    if (k === 0) problems.push(`shard ${i}/${n} is missing`);
    if (k > 1) problems.push(`shard ${i}/${n} appears ${k} times`);
  }
  return problems;
}

async function runMerge(files: string[], flags: MergeFlags): Promise<number> {
  const errors: InputError[] = [];
  const reports: GateReport[] = [];
  const fuzzShards: FuzzShardResult[] = [];
  const junits: JUnitSuite[][] = [];
  for (const file of files) {
    let text: string;
    try {
      text = await readFile(file, "utf8");
    } catch (e) {
      errors.push({ file, message: `cannot read: ${(e as Error).message}` });
      continue;
    }
    if (text.trimStart().startsWith("<")) {
      const parsed = parseJUnit(text, file);
      if (parsed.ok) junits.push(parsed.value);
      else errors.push(parsed.error);
      continue;
    }
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch (e) {
      errors.push({ file, message: `neither JUnit XML nor JSON: ${(e as Error).message}` });
      continue;
    }
    if ((data as { kind?: unknown } | null)?.kind === "fuzz-shard") {
      const shard = fuzzShardSchema.safeParse(data);
      if (shard.success) fuzzShards.push(shard.data);
      else errors.push({ file, message: "not the output of `lockcheck fuzz --shard i/n --json`" });
      continue;
    }
    const parsed = reportSchema.safeParse(data);
    if (!parsed.success) errors.push({ file, message: "not the output of `lockcheck gate --json`" });
    else reports.push(parsed.data as unknown as GateReport);
  }
  if (fuzzShards.length > 0 && (reports.length > 0 || junits.length > 0)) {
    errors.push({ message: "fuzz shards merge only with each other, not with gate results" });
  }
  if (errors.length > 0) {
    return printInputError(errors);
  }
  if (fuzzShards.length > 0) return mergeFuzz(fuzzShards, flags);
  const problems = shardProblems(reports);
  printInputError(problems);

  const merged = reports.length > 0 ? mergeGateReports(reports) : null;
  // JUnit: from the JSON results when there are any, plus any JUnit files given.
  const suites = mergeJUnitSuites([...(merged ? [gateJUnitSuites(merged)] : []), ...junits]);
  const failures = suites
    .flatMap((s) => s.cases)
    .filter((c) => c.outcome === "failed" || c.outcome === "error").length;
  if (flags.junit !== undefined) {
    try {
      await writeFile(flags.junit, renderJUnit(suites, "lockcheck gate"), "utf8");
    } catch (e) {
      return printInputError(`${flags.junit}: cannot write: ${(e as Error).message}`);
    }
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

function mergeFuzz(shards: readonly FuzzShardResult[], flags: MergeFlags): number {
  const problems = fuzzShardProblems(shards);
  if (problems.length > 0) return printInputError(problems);
  if (flags.junit !== undefined)
    return printInputError("--junit: fuzz shards have no JUnit form; use --json");
  const merged = mergeFuzzShards(shards);
  if (flags.json === true) process.stdout.write(`${JSON.stringify(merged)}\n`);
  else process.stdout.write(`${fuzzMergeText(merged)}\n`);
  return merged.violation ? 1 : 0;
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
