/**
 * `mergeResults(files, options)`: what `lockcheck merge` does between its flags and its output:
 * read the outputs of sharded `lockcheck gate` runs (their `--json` results and/or `--junit`
 * files) or of sharded `lockcheck fuzz --shard i/n --json` runs, and combine them into one
 * (src/runner/gate/gate.ts, src/runner/fuzz-merge.ts).
 */
import { readFile } from "node:fs/promises";
import { z } from "zod";
import type { GateReport } from "../report/gate-result.js";
import { type JUnitSuite, mergeJUnitSuites, parseJUnit } from "../report/junit.js";
import { err, type InputError, ok, type Result } from "../result.js";
import {
  type FuzzShardResult,
  fuzzShardProblems,
  fuzzShardSchema,
  type MergedFuzz,
  mergeFuzzShards,
} from "../runner/fuzz-merge.js";
import { gateJUnitSuites, mergeGateReports } from "../runner/gate/gate.js";

export type { MergedFuzz };

export type MergeOutcome =
  | { kind: "fuzz"; merged: MergedFuzz }
  | {
      kind: "gate";
      /** The combined gate result, if any JSON results were given. */
      merged: GateReport | null;
      /** JUnit: from the JSON results when there are any, plus any JUnit files given. */
      suites: JUnitSuite[];
      /** Failed or errored test cases. */
      failures: number;
      /** Problems with the set of shards (missing, repeated, different splits): exit 2. */
      problems: string[];
    };

const reportSchema = z.looseObject({
  version: z.literal(1),
  shard: z.object({ index: z.number().int(), count: z.number().int() }).nullable(),
  results: z.array(z.looseObject({ kind: z.enum(["target", "corpus"]), name: z.string(), met: z.boolean() })),
  ok: z.boolean(),
  elapsedMs: z.number(),
});

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

export async function mergeResults(
  files: readonly string[],
  o: { junit?: boolean } = {},
): Promise<Result<MergeOutcome, InputError[]>> {
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
    // What `fuzz --json` and `gate --json` print when a signal stops them: a shard that never finished.
    const signal = (data as { signal?: unknown } | null)?.signal;
    if (typeof signal === "string") {
      const what = (data as { kind?: unknown }).kind === "gate" ? "a gate" : "a search";
      errors.push({
        file,
        message: `${what} stopped by ${signal} before it finished: run that shard again`,
      });
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
  if (errors.length > 0) return err(errors);
  if (fuzzShards.length > 0) {
    const problems = fuzzShardProblems(fuzzShards);
    if (problems.length > 0) return err(problems.map((message) => ({ message })));
    if (o.junit === true)
      return err([{ field: "--junit", message: "fuzz shards have no JUnit form; use --json" }]);
    return ok({ kind: "fuzz", merged: mergeFuzzShards(fuzzShards) });
  }
  const merged = reports.length > 0 ? mergeGateReports(reports) : null;
  const suites = mergeJUnitSuites([...(merged ? [gateJUnitSuites(merged)] : []), ...junits]);
  const failures = suites
    .flatMap((s) => s.cases)
    .filter((c) => c.outcome === "failed" || c.outcome === "error").length;
  return ok({ kind: "gate", merged, suites, failures, problems: shardProblems(reports) });
}
