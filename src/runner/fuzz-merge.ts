/**
 * `lockcheck merge` for the `--json` results of `lockcheck fuzz --shard i/n`: the shards of one
 * campaign (same target, resource, seed, faults, clients and --runs) combine into what the
 * unsharded campaign reports — its lowest failing run (each shard reports the lowest of its
 * range) or, without one, every run tried.
 */
import { z } from "zod";

export const fuzzShardSchema = z.looseObject({
  kind: z.literal("fuzz-shard"),
  target: z.string(),
  resource: z.string(),
  seed: z.number().int(),
  faults: z.string(),
  clients: z.number().int().nullable(),
  runs: z.number().int(),
  elapsedMs: z.number(),
  interrupted: z.boolean(),
  violation: z.boolean(),
  shard: z.object({ index: z.number().int(), count: z.number().int() }),
  campaignRuns: z.number().int(),
  firstRun: z.number().int(),
  lastRun: z.number().int(),
  foundAtRun: z.number().int().optional(),
  dir: z.string().optional(),
  replay: z.string().optional(),
});

export type FuzzShardResult = z.infer<typeof fuzzShardSchema>;

export interface MergedFuzz {
  kind: "fuzz";
  target: string;
  resource: string;
  seed: number;
  faults: string;
  shards: number;
  /** Runs of the campaign tried: up to the first failing one, or all the shards' runs. */
  runs: number;
  /** True if a shard's time limit stopped it before the end of its range. */
  interrupted: boolean;
  violation: boolean;
  foundAtRun?: number;
  dir?: string;
  replay?: string;
  elapsedMs: number;
}

const CAMPAIGN_FIELDS = ["target", "resource", "seed", "faults", "clients", "campaignRuns"] as const;

/** Why these results are not the shards of one campaign, once each. */
export function fuzzShardProblems(results: readonly FuzzShardResult[]): string[] {
  if (results.length === 0) return [];
  const first = results[0]!;
  const problems: string[] = [];
  for (const field of CAMPAIGN_FIELDS) {
    const values = new Set(results.map((r) => JSON.stringify(r[field])));
    if (values.size > 1)
      problems.push(`the shards come from different campaigns (${field}: ${[...values].join(", ")})`);
  }
  const counts = new Set(results.map((r) => r.shard.count));
  if (counts.size > 1)
    return [...problems, "the shards come from different splits (--shard i/n with different n)"];
  const n = first.shard.count;
  for (let i = 1; i <= n; i++) {
    const k = results.filter((r) => r.shard.index === i).length;
    if (k === 0) problems.push(`shard ${i}/${n} is missing`);
    if (k > 1) problems.push(`shard ${i}/${n} appears ${k} times`);
  }
  return problems;
}

export function mergeFuzzShards(results: readonly FuzzShardResult[]): MergedFuzz {
  const sorted = [...results].sort((a, b) => a.firstRun - b.firstRun);
  const first = sorted[0]!;
  const failing = sorted.find((r) => r.violation && r.foundAtRun !== undefined);
  const foundAtRun = failing?.foundAtRun;
  const base = {
    kind: "fuzz" as const,
    target: first.target,
    resource: first.resource,
    seed: first.seed,
    faults: first.faults,
    shards: sorted.length,
    elapsedMs: Math.max(0, ...sorted.map((r) => r.elapsedMs)),
  };
  if (failing === undefined || foundAtRun === undefined) {
    return {
      ...base,
      runs: sorted.reduce((n, r) => n + r.runs, 0),
      interrupted: sorted.some((r) => r.interrupted),
      violation: false,
    };
  }
  const below = sorted.filter((r) => r.firstRun < failing.firstRun);
  return {
    ...base,
    runs: foundAtRun,
    interrupted: below.some((r) => r.interrupted),
    violation: true,
    foundAtRun,
    ...(failing.dir === undefined ? {} : { dir: failing.dir }),
    ...(failing.replay === undefined ? {} : { replay: failing.replay }),
  };
}
