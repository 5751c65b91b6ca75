/**
 * Determinism: the same schedule gives byte-identical histories, also after a round trip of
 * the schedule through JSON and the schema, for every kind of lock server. And the histories
 * are well formed (the foundation's validator finds nothing to complain about), and reply
 * batching (src/sim/batch.ts) never changes them.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createHistoryValidator } from "../../src/history/validate.js";
import { consensus } from "../../src/locks/consensus.js";
import { leaseToken } from "../../src/locks/lease-token.js";
import type { LockAlgorithm } from "../../src/locks/lock.js";
import { redlock } from "../../src/locks/redlock.js";
import { zk } from "../../src/locks/zk.js";
import { type Schedule, scheduleSchema } from "../../src/schedule/schedule.js";
import { prepareSimulation, simulate } from "../../src/sim/simulate.js";
import { scheduleArb } from "./arbitrary.js";
import { historyBytes } from "./helpers.js";

const CASES: [string, LockAlgorithm, number, Schedule["resource"]][] = [
  ["lease-token", leaseToken, 1, "fenced"],
  ["redlock", redlock, 5, "unfenced"],
  ["consensus", consensus, 3, "fenced-txn"],
  ["zk", zk, 3, "fenced"],
];

describe.each(CASES)("simulating %s", (_name, algorithm, servers, resource) => {
  it("is deterministic: same schedule (and its JSON round trip) ⇒ identical history bytes", async () => {
    await fc.assert(
      fc.asyncProperty(scheduleArb(servers, resource), async (schedule) => {
        const first = historyBytes((await simulate(schedule, algorithm)).ops);
        const second = historyBytes((await simulate(schedule, algorithm)).ops);
        const reparsed = scheduleSchema.parse(JSON.parse(JSON.stringify(schedule)));
        const third = historyBytes((await simulate(reparsed, algorithm)).ops);
        expect(second).toBe(first);
        expect(third).toBe(first);
      }),
      { numRuns: 25, seed: 42 },
    );
  });

  it("gives the same history with reply batching as strictly, draining after every reply", async () => {
    await fc.assert(
      fc.asyncProperty(scheduleArb(servers, resource), async (schedule) => {
        const strict = await prepareSimulation(schedule, algorithm, { strict: true }).run();
        const batched = await simulate(schedule, algorithm);
        expect(historyBytes(batched.ops)).toBe(historyBytes(strict.ops));
        expect(batched.stats).toEqual(strict.stats);
      }),
      { numRuns: 25, seed: 7 },
    );
  });

  it("records well-formed histories: indices in order, time never backwards, one completion per call", async () => {
    await fc.assert(
      fc.asyncProperty(scheduleArb(servers, resource), async (schedule) => {
        const { ops, stats } = await simulate(schedule, algorithm);
        const v = createHistoryValidator();
        for (const [i, op] of ops.entries()) v.check(op, i + 1);
        v.finish();
        expect(v.errors).toEqual([]);
        expect(v.warnings).toEqual([]);
        const invokes = ops.filter((op) => op.type === "invoke").length;
        const completions = ops.filter((op) => op.process !== "nemesis" && op.type !== "invoke").length;
        expect(completions).toBe(invokes);
        expect(stats.virtualMs).toBeLessThanOrEqual(2 * schedule.options.horizonMs);
      }),
      { numRuns: 25, seed: 7 },
    );
  });
});
