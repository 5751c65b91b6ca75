/**
 * Fuzzing on several worker threads (src/runner/workers/) and in shards: the same seed gives
 * the same runs, the same first counterexample and the same shrunk schedule as the sequential
 * search, whatever the number of workers or shards.
 */
import { spawnSync } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FaultCategory } from "../../src/generators/bounds.js";
import { serializeOp } from "../../src/history/jsonl.js";
import type { Op } from "../../src/history/op.js";
import type { GateReport } from "../../src/report/gate-result.js";
import { type FuzzOptions, type FuzzResult, fuzz } from "../../src/runner/fuzz.js";
import { type FuzzShardResult, fuzzShardProblems, mergeFuzzShards } from "../../src/runner/fuzz-merge.js";
import { shardRange } from "../../src/runner/fuzz-shard.js";
import { planGate, runGate } from "../../src/runner/gate/gate.js";
import { parseGateConfig } from "../../src/runner/gate/gate-config.js";
import { SearchFrontier } from "../../src/runner/workers/blocks.js";
import { fuzzOnCores } from "../../src/runner/workers/fuzz-parallel.js";
import type { ResourceMode } from "../../src/schedule/schedule.js";
import { target } from "./schedules.js";

const bytes = (ops: readonly Op[]) => ops.map((o) => `${serializeOp(o)}\n`).join("");

// Shrinking bounded by runs only, so that a loaded machine cannot change where it stops.
const BUDGET = { maxRuns: 150, timeLimitMs: 600_000 };

function options(
  name: string,
  resource: ResourceMode,
  faults: FaultCategory[],
  seed: number,
  runs: number,
): FuzzOptions {
  return { target: target(name), resource, faults, seed, runs, fcShrink: BUDGET, shrink: BUDGET };
}

/** What must not depend on the number of workers. */
function outcome(r: FuzzResult) {
  const ce = r.counterexample;
  return {
    runs: r.runs,
    error: r.error,
    foundAtRun: ce?.foundAtRun ?? null,
    original: ce?.original ?? null,
    schedule: ce?.schedule ?? null,
    shrinkRuns: ce?.shrinkRuns ?? null,
    ops: ce === null ? null : bytes(ce.ops),
    verdicts: ce?.verdicts ?? null,
  };
}

describe("SearchFrontier", () => {
  it("decides the lowest failing index whatever order the blocks finish in", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 50 }),
        fc.integer({ min: 1, max: 400 }),
        fc.uniqueArray(fc.integer({ min: 0, max: 500 }), { maxLength: 4 }),
        fc.array(fc.nat(), { minLength: 1, maxLength: 300 }),
        fc.integer({ min: 1, max: 4 }),
        (from, size, failing, picks, searchers) => {
          const end = from + size;
          const fails = failing.map((k) => from + k).filter((k) => k < end);
          const frontier = new SearchFrontier(from, end, searchers);
          const pending: { start: number; count: number }[] = [];
          let pick = 0;
          for (;;) {
            // Keep up to 3 blocks in flight (3 workers), finish one of them chosen by `picks`.
            for (let b = frontier.next(); b !== null; b = pending.length < 2 ? frontier.next() : null) {
              pending.push(b);
              if (pending.length >= 3) break;
            }
            if (pending.length === 0 || frontier.decided()) break;
            const [block] = pending.splice(picks[pick++ % picks.length]! % pending.length, 1);
            const inBlock = fails.filter((k) => k >= block!.start && k < block!.start + block!.count);
            frontier.finish(block!.start, inBlock.length === 0 ? null : Math.min(...inBlock));
          }
          if (fails.length === 0) {
            expect(frontier.exhausted()).toBe(true);
            expect(frontier.passedPrefix()).toBe(size);
          } else {
            expect(frontier.decided()).toBe(true);
            expect(frontier.lowestFailure()).toBe(Math.min(...fails));
            expect(from + frontier.passedPrefix()).toBe(Math.min(...fails));
          }
        },
      ),
    );
  });
});

describe("SearchFrontier block sizes", () => {
  it("cover the campaign once, and near its end leave no searcher a block over half its share", () => {
    for (const [from, end, searchers] of [
      [0, 40_000, 2],
      [1000, 9000, 3],
      [0, 100, 2],
      [160_000, 320_000, 2],
    ] as const) {
      const frontier = new SearchFrontier(from, end, searchers);
      let at = from;
      for (let b = frontier.next(); b !== null; b = frontier.next()) {
        expect(b.start).toBe(at);
        const left = end - b.start;
        expect(b.count).toBeLessThanOrEqual(Math.max(64, Math.ceil(left / (2 * searchers))));
        at += b.count;
      }
      expect(at).toBe(end);
    }
    // Without the tail rule the last block of a 40,000-run campaign would be 4,000 runs long.
    const blocks: number[] = [];
    const f = new SearchFrontier(0, 40_000, 2);
    for (let b = f.next(); b !== null; b = f.next()) blocks.push(b.count);
    expect(Math.max(...blocks.slice(-3))).toBeLessThanOrEqual(64);
  });

  it("grow with the run index, so that messages and fast-check set-ups stay few", () => {
    // About i/8 runs at index i: a 160,000-run campaign on 2 searchers is under 100 blocks,
    // not the 20,000 of blocks of 8.
    for (const [from, end, most] of [
      [0, 160_000, 100],
      [160_000, 320_000, 35],
    ] as const) {
      const f = new SearchFrontier(from, end, 2);
      let n = 0;
      for (let b = f.next(); b !== null; b = f.next()) n++;
      expect(n).toBeLessThan(most);
    }
  });
});

describe("fuzz on 1, 2 and 3 workers", () => {
  const cases: [string, ResourceMode, FaultCategory[], number, number][] = [
    ["sim:lease", "unfenced", ["pause"], 31, 500],
    ["sim:redlock", "unfenced", ["clock"], 5, 600],
    ["sim:zk", "unfenced", ["pause", "partition"], 2, 400],
    ["sim:consensus", "fenced", ["pause", "partition", "crash", "delay"], 4, 60],
  ];
  for (const [name, resource, faults, seed, runs] of cases) {
    it(`${name}/${resource} seed ${seed}: the same runs, first counterexample and shrunk schedule`, async () => {
      const o = options(name, resource, faults, seed, runs);
      const one = outcome(await fuzz(o));
      for (const workers of [2, 3]) {
        expect(outcome(await fuzzOnCores(o, workers)), `${workers} workers`).toEqual(one);
        const atOnce = await fuzzOnCores(o, workers, { threadsAtOnce: true });
        expect(outcome(atOnce), `this thread and ${workers - 1} more from the start`).toEqual(one);
      }
      // Every block on worker threads, none in this one.
      expect(outcome(await fuzzOnCores(o, 2, { searchHere: false })), "2 threads alone").toEqual(one);
    }, 120_000);
  }

  it("a counterexample beyond the first blocks is found at the same run", async () => {
    const o = options("sim:redlock", "unfenced", ["clock"], 5, 600);
    const r = await fuzzOnCores(o, 2, { searchHere: false });
    // Run 239 (see the case above) lies in a later block than the first few of each worker.
    expect(r.counterexample?.foundAtRun).toBe(
      (await fuzz({ ...o, shrink: false, fcShrink: { maxRuns: 0 } })).counterexample?.foundAtRun,
    );
    expect(r.counterexample?.foundAtRun).toBeGreaterThan(100);
  }, 120_000);
});

describe("fuzz shards", () => {
  /** Runs shard i/n of the campaign `o` as `lockcheck fuzz --shard i/n --json` would report it. */
  async function shard(
    o: FuzzOptions,
    index: number,
    count: number,
    workers: number,
  ): Promise<FuzzShardResult> {
    const runs = o.runs ?? 1000;
    const range = shardRange({ index, count }, runs);
    const r = await fuzzOnCores({ ...o, startAt: range.from, runs: range.to - range.from }, workers);
    return {
      kind: "fuzz-shard",
      target: r.target,
      resource: r.resource,
      seed: r.seed,
      faults: o.faults.join(","),
      clients: null,
      runs: r.runs - range.from,
      elapsedMs: r.elapsedMs,
      interrupted: r.interrupted,
      violation: r.counterexample !== null,
      shard: { index, count },
      campaignRuns: runs,
      firstRun: range.from + 1,
      lastRun: range.to,
      ...(r.counterexample === null
        ? {}
        : { foundAtRun: r.counterexample.foundAtRun, dir: JSON.stringify(r.counterexample.schedule) }),
    };
  }

  it("split the runs into ranges that cover the campaign once", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 9 }), fc.integer({ min: 0, max: 5000 }), (n, runs) => {
        const ranges = Array.from({ length: n }, (_, i) => shardRange({ index: i + 1, count: n }, runs));
        expect(ranges[0]!.from).toBe(0);
        expect(ranges[n - 1]!.to).toBe(runs);
        for (let i = 1; i < n; i++) expect(ranges[i]!.from).toBe(ranges[i - 1]!.to);
      }),
    );
  });

  it("merged, they report the unsharded campaign's first counterexample (the shard saves the same schedule)", async () => {
    const o = options("sim:redlock", "unfenced", ["clock"], 5, 600);
    const whole = await fuzz(o);
    // Shard 2/3 holds run 239; shard 3/3 finds a later one, which merge must not pick.
    const shards = [await shard(o, 3, 3, 2), await shard(o, 1, 3, 1), await shard(o, 2, 3, 2)];
    expect(fuzzShardProblems(shards)).toEqual([]);
    const merged = mergeFuzzShards(shards);
    expect(merged).toMatchObject({
      violation: true,
      foundAtRun: whole.counterexample?.foundAtRun,
      runs: whole.runs,
    });
    expect(merged.dir).toBe(JSON.stringify(whole.counterexample?.schedule));
  }, 120_000);

  it("without a violation, merged they tried every run", async () => {
    const o = options("sim:lease-token", "fenced", ["pause", "clock"], 3, 90);
    const shards = [await shard(o, 1, 2, 2), await shard(o, 2, 2, 1)];
    expect(mergeFuzzShards(shards)).toMatchObject({ violation: false, runs: (await fuzz(o)).runs });
    expect(fuzzShardProblems([shards[0]!])).toEqual(["shard 2/2 is missing"]);
    expect(fuzzShardProblems([shards[0]!, { ...shards[1]!, seed: 4 }])[0]).toContain(
      "different campaigns (seed",
    );
  }, 120_000);
});

describe("gate on several workers", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "lockcheck-gate-workers-"));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function gate(workers: number): Promise<GateReport> {
    const parsed = parseGateConfig(
      {
        seed: 5,
        output: `out-${workers}`,
        targets: [
          {
            name: "canary",
            target: "sim:redlock",
            resource: "unfenced",
            expect: "unsafe",
            faults: ["clock"],
            runs: 400,
          },
          {
            name: "regressed",
            target: "sim:lease",
            resource: "unfenced",
            expect: "safe",
            faults: ["pause"],
            runs: 300,
          },
          {
            name: "safe",
            target: "sim:lease-token",
            resource: "fenced",
            expect: "safe",
            faults: ["pause"],
            runs: 40,
          },
        ],
      },
      join(dir, "lockcheck.config.json"),
      dir,
    );
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.error));
    return runGate(planGate(parsed.value, []), parsed.value, null, {}, { workers });
  }

  // (The shrunk schedules are not compared: the gate shrinks within a time budget.)
  it("gives the same results: runs, first failing runs, expectations met", async () => {
    const strip = (r: GateReport) =>
      r.results.map(({ elapsedMs: _, ...rest }) =>
        "counterexample" in rest && rest.counterexample !== undefined
          ? { ...rest, counterexample: { ...rest.counterexample, dir: "", replay: "" } }
          : rest,
      );
    const one = await gate(1);
    const two = await gate(2);
    expect(strip(two)).toEqual(strip(one));
    expect(one.results.map((r) => [r.name, r.met])).toEqual([
      ["canary", true],
      ["regressed", false],
      ["safe", true],
    ]);
  }, 240_000);
});

describe("lockcheck fuzz --workers / --shard and lockcheck merge", () => {
  const root = join(import.meta.dirname, "../..");
  const tsx = import.meta.resolve("tsx");
  let cwd: string;
  beforeAll(async () => {
    cwd = await mkdtemp(join(tmpdir(), "lockcheck-fuzz-shards-"));
  });
  afterAll(async () => {
    await rm(cwd, { recursive: true, force: true });
  });
  const lockcheck = (...args: string[]) => {
    const r = spawnSync(process.execPath, ["--import", tsx, join(root, "src/cli/main.ts"), ...args], {
      cwd,
      encoding: "utf8",
      env: { ...process.env, NO_COLOR: "1" },
      timeout: 120_000,
    });
    return { code: r.status, stdout: r.stdout, stderr: r.stderr };
  };
  const campaign = [
    "--target",
    "sim:redlock",
    "--resource",
    "unfenced",
    "--faults",
    "clock",
    "--seed",
    "5",
    "--runs",
    "600",
  ];

  it("the shards' merged result names the run the unsharded fuzz finds", async () => {
    const whole = lockcheck("fuzz", ...campaign, "--workers", "2", "--json");
    expect(whole.code, whole.stderr).toBe(1);
    const foundAtRun = JSON.parse(whole.stdout).foundAtRun;
    const files: string[] = [];
    for (const i of [1, 2, 3]) {
      const r = lockcheck("fuzz", ...campaign, "--shard", `${i}/3`, "--workers", "2", "--json");
      expect(r.code, r.stderr).toBe(i === 1 ? 0 : 1);
      files.push(join(cwd, `shard-${i}.json`));
      await writeFile(files[i - 1]!, r.stdout);
    }
    const merged = lockcheck("merge", ...files, "--json");
    expect(merged.code, merged.stderr).toBe(1);
    expect(JSON.parse(merged.stdout)).toMatchObject({
      violation: true,
      foundAtRun,
      runs: foundAtRun,
      shards: 3,
    });
    const text = lockcheck("merge", ...files);
    expect(text.stdout).toContain(`violation found in run ${foundAtRun} of sim:redlock (unfenced), seed 5`);
    const missing = lockcheck("merge", files[0]!, files[2]!);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("shard 2/3 is missing");
  }, 240_000);

  it("rejects --shard with only a time limit, and a bad --workers", () => {
    const r = lockcheck("fuzz", "--target", "sim:lease", "--time-limit", "1s", "--shard", "1/2");
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--shard: needs --runs");
    const w = lockcheck("fuzz", "--target", "sim:lease", "--workers", "0");
    expect(w.code).not.toBe(0);
    expect(w.stderr).toContain("--workers must be a positive integer");
  });
});
