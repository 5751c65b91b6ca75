/**
 * The search threads of a process (src/runner/workers/pool.ts): a search gives its threads
 * back warm, even one stopped in the middle of a block, and the next search borrows them at
 * once and still finds what the sequential search finds.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FaultCategory } from "../../src/generators/bounds.js";
import { type FuzzOptions, type FuzzResult, fuzz } from "../../src/runner/fuzz.js";
import { fuzzOnCores } from "../../src/runner/workers/fuzz-parallel.js";
import { endIdleThreads, warmThreads } from "../../src/runner/workers/pool.js";
import type { ResourceMode } from "../../src/schedule/schedule.js";
import { target } from "./schedules.js";

const NO_SHRINK = { shrink: false, fcShrink: { maxRuns: 0 } } as const;

function options(name: string, resource: ResourceMode, faults: FaultCategory[], seed: number, runs: number) {
  return { target: target(name), resource, faults, seed, runs, ...NO_SHRINK } satisfies FuzzOptions;
}

const found = (r: FuzzResult) => ({ runs: r.runs, at: r.counterexample?.foundAtRun ?? null, error: r.error });

describe("the search thread pool", () => {
  beforeAll(endIdleThreads);
  afterAll(endIdleThreads);

  it("takes back a thread stopped mid-block, and lends it warm to the next searches", async () => {
    expect(warmThreads()).toBe(0);
    // A time limit stops the search while the thread is in the middle of a block. Blocks this
    // late in a campaign are 50,000 runs (blocks.ts), far more than a thread could finish in
    // the 5 s it is given to drop its block before it is ended instead.
    const stopped = await fuzzOnCores(
      {
        ...options("sim:consensus", "fenced", ["pause", "delay"], 3, 100_000),
        startAt: 800_000,
        timeLimitMs: 1500,
      },
      2,
      { threadsAtOnce: true },
    );
    expect(stopped.interrupted).toBe(true);
    expect(stopped.counterexample).toBeNull();
    expect(warmThreads(), "the stopped thread is back, warm").toBe(1);

    // Another target, another seed: the warm thread joins at once (no waiting to see whether
    // a new one would pay), and the search finds the sequential search's first failing run.
    const o = options("sim:redlock", "unfenced", ["clock"], 5, 600);
    let lentDuringSearch = false;
    const parallel = await fuzzOnCores(
      {
        ...o,
        onProgress: () => {
          lentDuringSearch ||= warmThreads() === 0;
        },
      },
      2,
    );
    expect(lentDuringSearch, "the warm thread was lent to the search").toBe(true);
    expect(found(parallel)).toEqual(found(await fuzz(o)));
    expect(found(parallel).at).not.toBeNull();
    expect(warmThreads()).toBe(1);

    // And a search with no violation tries every run.
    const clean = options("sim:lease-token", "fenced", ["pause", "delay"], 4, 3000);
    expect(found(await fuzzOnCores(clean, 2))).toEqual({ runs: 3000, at: null, error: null });
    expect(warmThreads()).toBe(1);
  }, 120_000);

  it("ends idle threads on request", async () => {
    await fuzzOnCores(options("sim:lease", "unfenced", ["pause"], 31, 200), 2, { threadsAtOnce: true });
    expect(warmThreads()).toBeGreaterThan(0);
    await endIdleThreads();
    expect(warmThreads()).toBe(0);
  }, 60_000);
});
