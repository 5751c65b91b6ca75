/**
 * Reply batching (src/sim/batch.ts): a client that awaits several replies together is drained
 * once per batch instead of once per reply, and the history is still the strict one; a client
 * that acts on part of a batch makes the batched run late, and `simulate` reruns it strictly.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { LockEnv } from "../../src/env/env.js";
import { leaseToken } from "../../src/locks/lease-token.js";
import type { LockAlgorithm } from "../../src/locks/lock.js";
import { redlock } from "../../src/locks/redlock.js";
import type { Schedule } from "../../src/schedule/schedule.js";
import { prepareSimulation, simulate } from "../../src/sim/simulate.js";
import { scheduleArb } from "./arbitrary.js";
import { historyBytes, probe, scheduleOf } from "./helpers.js";

/**
 * A majority lock over every Redis-like server (Redlock without retries or validity check),
 * its calls made either one per server and awaited together ("each") or as one fan-out ("all").
 */
function majorityLock(calls: "each" | "all"): LockAlgorithm {
  const set = (env: LockEnv, key: string, owner: string, ttlMs: number) =>
    calls === "all"
      ? env.redisAll.setNxPx(key, owner, ttlMs)
      : Promise.all(env.redis.map((n) => n.setNxPx(key, owner, ttlMs)));
  const del = (env: LockEnv, key: string, owner: string) =>
    calls === "all"
      ? env.redisAll.delIfEquals(key, owner)
      : Promise.all(env.redis.map((n) => n.delIfEquals(key, owner)));
  return {
    name: `majority-${calls}`,
    servers: "redis",
    fencing: false,
    async acquire(env, req) {
      const replies = await set(env, req.lock, req.owner, req.ttlMs);
      const yes = replies.filter((r) => r.ok && r.value).length;
      if (yes > env.redis.length / 2)
        return { outcome: "granted", token: null, handle: { request: req, state: null } };
      await del(env, req.lock, req.owner);
      return { outcome: "denied", reason: "no-quorum" };
    },
    async release(env, handle) {
      const replies = await del(env, handle.request.lock, handle.request.owner);
      return replies.some((r) => r.ok && r.value) ? { outcome: "released" } : { outcome: "not-held" };
    },
  };
}

async function strictAndBatched(schedule: Schedule, algorithm: LockAlgorithm) {
  const strict = prepareSimulation(schedule, algorithm, { strict: true });
  const strictRun = await strict.run();
  const batched = prepareSimulation(schedule, algorithm, { strict: false });
  const batchedRun = await batched.run();
  return { strict, strictRun, batched, batchedRun };
}

/** On every schedule: the batched run is not late and records the strict run's history. */
async function expectBatchedIsStrict(
  schedules: fc.Arbitrary<Schedule>,
  algorithm: LockAlgorithm,
  params: { numRuns: number; seed: number },
): Promise<void> {
  await fc.assert(
    fc.asyncProperty(schedules, async (schedule) => {
      const { strictRun, batched, batchedRun } = await strictAndBatched(schedule, algorithm);
      expect(batched.world.core.late).toBe(false);
      expect(historyBytes(batchedRun.ops)).toBe(historyBytes(strictRun.ops));
    }),
    params,
  );
}

describe("reply batching", () => {
  it("gives a client that awaits calls to every server together the strict history with fewer drains", async () => {
    await fc.assert(
      fc.asyncProperty(scheduleArb(5, "unfenced"), async (schedule) => {
        const { strict, strictRun, batched, batchedRun } = await strictAndBatched(
          schedule,
          majorityLock("each"),
        );
        expect(batched.world.core.late).toBe(false);
        expect(historyBytes(batchedRun.ops)).toBe(historyBytes(strictRun.ops));
        expect(batchedRun.stats).toEqual(strictRun.stats);
        const sentAtOnce = strictRun.ops.some((op) => op.f === "acquire" && op.type === "invoke");
        if (sentAtOnce) expect(batched.world.core.drains).toBeLessThan(strict.world.core.drains);
      }),
      { numRuns: 25, seed: 11 },
    );
  });

  it("gives redlock (whose calls go out as one fan-out) the strict history", async () => {
    await expectBatchedIsStrict(scheduleArb(5, "unfenced"), redlock, { numRuns: 25, seed: 12 });
  });

  it("a fan-out (env.redisAll) gives the same history as calling each server and awaiting them all", async () => {
    let acquires = 0;
    await fc.assert(
      fc.asyncProperty(scheduleArb(5, "unfenced"), async (schedule) => {
        const each = await simulate(schedule, majorityLock("each"));
        const all = await simulate(schedule, majorityLock("all"));
        acquires += all.ops.filter((op) => op.f === "acquire" && op.type === "ok").length;
        expect(historyBytes(all.ops)).toBe(historyBytes(each.ops));
        expect(all.stats).toEqual(each.stats);
      }),
      { numRuns: 40, seed: 13 },
    );
    expect(acquires).toBeGreaterThan(20); // the runs did grant locks
  });

  it("leaves one-call-at-a-time clients as they were", async () => {
    await expectBatchedIsStrict(scheduleArb(1, "fenced"), leaseToken, { numRuns: 15, seed: 5 });
  });

  it("a client that acts on the first of five replies makes the batched run late; simulate reruns it strictly", async () => {
    // Reads its clock as soon as any reply is in (a quorum-early client would act there),
    // then again when all are in. Latencies 1–9 ms: the replies arrive at different times.
    const seen: number[][] = [];
    const firstReply: LockAlgorithm = probe("redis", async (env: LockEnv) => {
      const times: number[] = [];
      seen.push(times);
      const pending = env.redis.map((n) => n.setNxPx("k", "v", 1000));
      await Promise.race(pending);
      times.push(env.now());
      await Promise.all(pending);
      times.push(env.now());
    });
    const schedule = scheduleOf({ servers: 5, options: { latencyMs: { min: 1, max: 9 } }, seed: 3 });

    const { strictRun, batched } = await strictAndBatched(schedule, firstReply);
    expect(batched.world.core.late).toBe(true);
    const [strictTimes, batchedTimes] = seen;
    expect(strictTimes![0]).toBeLessThan(strictTimes![1]!);
    expect(batchedTimes![0]).not.toBe(strictTimes![0]); // the batched run read it late

    const run = await simulate(schedule, firstReply);
    expect(historyBytes(run.ops)).toBe(historyBytes(strictRun.ops));
    expect(seen.at(-1)).toEqual(strictTimes); // the rerun saw what the strict run saw
  });
});
