/**
 * One block of a parallel search (src/runner/workers/run-block.ts): it runs the schedules the
 * sequential search would run at those indices, in order, generating each only when it is
 * about to run, and reports the first that fails.
 */
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { runCursor } from "../../src/generators/run-position.js";
import { fuzz, fuzzScheduleArb } from "../../src/runner/fuzz.js";
import { runBlock } from "../../src/runner/workers/run-block.js";
import type { Schedule } from "../../src/schedule/schedule.js";
import type { Target } from "../../src/targets/target.js";
import { target } from "./schedules.js";

const seed = 23;
/** Where run index `i` of the seed starts. */
const at = (i: number) => runCursor(seed).at(i);
const base = target("sim:lease");

/** A target that records what it is given, generated so far, and throws (a failure) on one run. */
function recorder(failOn: (k: number) => boolean) {
  const seen: string[] = [];
  let generated = 0;
  let mostAhead = 0;
  const arb = fuzzScheduleArb({ target: base, resource: "unfenced", faults: ["pause"], seed }).map((s) => {
    generated++;
    return s;
  });
  const t: Target = {
    ...base,
    async run(schedule: Schedule) {
      mostAhead = Math.max(mostAhead, generated - seen.length);
      seen.push(JSON.stringify(schedule));
      if (failOn(seen.length - 1)) throw new Error("the failing run");
      return { ops: [], stats: {} };
    },
  };
  return { arb, target: t, seen, mostAhead: () => mostAhead };
}

/** The schedules of the seed's first `n` run indices, as fast-check samples them by default. */
const sequential = (n: number) =>
  (
    fc.sample(fuzzScheduleArb({ target: base, resource: "unfenced", faults: ["pause"], seed }), {
      seed,
      numRuns: n,
    }) as Schedule[]
  ).map((s) => JSON.stringify(s));

describe("runBlock", () => {
  it("runs the seed's schedules of its indices in order, one generated at a time", async () => {
    const r = recorder(() => false);
    const out = await runBlock(r.target, r.arb, seed, at(40), 25);
    expect(out).toEqual({ failedAt: null, passed: 25, abandoned: false });
    expect(r.seen).toEqual(sequential(65).slice(40));
    // Generated lazily: never more than the one about to run.
    expect(r.mostAhead()).toBe(1);
  });

  it("stops at the first failing run and names its index", async () => {
    const r = recorder((k) => k === 7 || k === 9);
    const out = await runBlock(r.target, r.arb, seed, at(100), 20);
    expect(out).toEqual({ failedAt: 107, passed: 7, abandoned: false });
    expect(r.seen).toHaveLength(8);
  });

  it("ends early when abandoned, counting the runs that passed, and reports passes as they come", async () => {
    const r = recorder(() => false);
    const counts: number[] = [];
    let yields = 0;
    const out = await runBlock(r.target, r.arb, seed, at(0), 30, {
      passed: (n) => counts.push(n),
      between: async () => {
        yields++;
      },
      abandoned: () => counts.length === 5,
    });
    expect(out).toEqual({ failedAt: null, passed: 5, abandoned: true });
    expect(counts).toEqual([1, 2, 3, 4, 5]);
    expect(yields).toBe(5);
  });

  it("passes on an error thrown by a hook rather than taking it for a failing run", async () => {
    const r = recorder(() => false);
    const hooks = {
      passed: (n: number) => {
        if (n === 3) throw new Error("progress sink broke");
      },
    };
    await expect(runBlock(r.target, r.arb, seed, at(0), 10, hooks)).rejects.toThrow("progress sink broke");
  });
});

describe("runBlock under a caller's fast-check settings", () => {
  afterEach(() => fc.resetConfigureGlobal());

  it("fails loudly rather than count runs that fast-check skipped as passed", async () => {
    // A global time limit of 0 ms: fast-check skips every run after the first instant.
    fc.configureGlobal({ skipAllAfterTimeLimit: 0 });
    const r = recorder(() => false);
    await expect(runBlock(r.target, r.arb, seed, at(0), 50)).rejects.toThrow("ran only");
    expect(r.seen.length).toBeLessThan(50);
  });

  it("runs the seed's own schedules whatever random generator, bias or skipping of equal values the caller set", async () => {
    const expected = sequential(30).slice(10);
    fc.configureGlobal({
      randomType: "mersenne",
      unbiased: true,
      skipEqualValues: true,
      ignoreEqualValues: true,
    });
    const r = recorder(() => false);
    await runBlock(r.target, r.arb, seed, at(10), 20);
    expect(r.seen).toEqual(expected);
  });

  it("a sequential fuzz finds the same run under those settings", async () => {
    const o = {
      target: base,
      resource: "unfenced" as const,
      faults: ["pause" as const],
      seed: 31,
      runs: 500,
    };
    const quick = { shrink: false as const, fcShrink: { maxRuns: 0 } };
    const plain = await fuzz({ ...o, ...quick });
    fc.configureGlobal({ randomType: "congruential32", unbiased: true });
    const configured = await fuzz({ ...o, ...quick });
    expect(plain.counterexample?.foundAtRun).toBeGreaterThan(0);
    expect(configured.counterexample?.foundAtRun).toBe(plain.counterexample?.foundAtRun);
    expect(configured.counterexample?.original).toEqual(plain.counterexample?.original);
  });
});
