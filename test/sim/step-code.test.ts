/**
 * Step code (env/steps.ts) in the simulator: the built-in locks and the workload are
 * generators resumed by the loop itself (sim-op.ts), and a user's async algorithm is awaited
 * through promises. The two must be the same world: a built-in lock run as an async function
 * (as a user's wrapper of it would be) gives byte-identical histories.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { LockEnv } from "../../src/env/env.js";
import { awaiting, driveAsync, type Steps } from "../../src/env/steps.js";
import { FAULT_CATEGORIES, PAUSE_KINDS } from "../../src/generators/bounds.js";
import { scheduleArb } from "../../src/generators/schedule.js";
import { LOCK_ALGORITHMS } from "../../src/locks/index.js";
import type { LockAlgorithm } from "../../src/locks/lock.js";
import { createCore, type SimCore } from "../../src/sim/scheduler.js";
import {
  type ClientDriver,
  completeOp,
  failOp,
  resumeClient,
  SimOp,
  startClient,
} from "../../src/sim/sim-op.js";

/** The drivers waiting on the core's ready list (its first `readyCount` entries). */
const readyOf = (core: SimCore): (ClientDriver | null)[] => core.ready.slice(0, core.readyCount);
/** Takes the one driver on the ready list, as a drain would. */
function takeReady(core: SimCore): ClientDriver {
  expect(core.readyCount).toBe(1);
  core.readyCount = 0;
  return core.ready[0]!;
}

import { simulate } from "../../src/sim/simulate.js";
import { SIM_TARGETS } from "../../src/targets/sim.js";
import { historyBytes, invocation, probe, scheduleOf, setOnce } from "./helpers.js";

/** The algorithm behind its async functions only: the simulator cannot see its step form. */
function asAsync(alg: LockAlgorithm): LockAlgorithm {
  return { ...alg, acquire: (env, req) => alg.acquire(env, req), release: (env, h) => alg.release(env, h) };
}

describe("a built-in lock run as step code and as an async function", () => {
  for (const alg of LOCK_ALGORITHMS) {
    const target = SIM_TARGETS.find((t) => t.name === `sim:${alg.name}`)!;
    it(`${alg.name}: gives the same history, whatever the faults`, async () => {
      const schedules = scheduleArb({
        target: target.name,
        resource: target.resources[0],
        options: target.defaults,
        workload: { maxClients: 4, maxCycles: 5 },
        faults: { categories: FAULT_CATEGORIES, leader: target.hasLeader, pauses: PAUSE_KINDS, maxFaults: 8 },
      });
      await fc.assert(
        fc.asyncProperty(schedules, async (s) => {
          const stepped = historyBytes((await simulate(s, alg)).ops);
          const awaited = historyBytes((await simulate(s, asAsync(alg))).ops);
          expect(awaited).toBe(stepped);
        }),
        { numRuns: 15, seed: 5 },
      );
    });
  }

  it("a wrapper of a built-in lock is what runs, not the lock's own steps", async () => {
    const lease = LOCK_ALGORITHMS.find((a) => a.name === "lease")!;
    let acquires = 0;
    const counted: LockAlgorithm = {
      ...lease,
      acquire: (env, req) => {
        acquires++;
        return lease.acquire(env, req);
      },
    };
    await simulate(scheduleOf({}), counted);
    expect(acquires).toBe(1);
  });
});

describe("the simulator's driver of step code", () => {
  function* waitTwice(first: SimOp<number>, second: SimOp<number>, seen: number[]): Steps<void> {
    seen.push(yield* first);
    seen.push(yield* second);
  }

  it("resumes code at the next drain, not in the settle, and goes straight on past an op settled before it is waited on", () => {
    const core = createCore();
    const a = new SimOp<number>(core);
    const b = new SimOp<number>(core);
    const seen: number[] = [];
    let done = false;
    const driver = startClient(
      core,
      waitTwice(a, b, seen),
      () => (done = true),
      (e) => {
        throw e;
      },
    );
    completeOp(b, 2); // before the code waits on it
    expect(readyOf(core)).toEqual([]);
    completeOp(a, 1);
    expect(seen).toEqual([]);
    expect(readyOf(core)).toEqual([driver]);
    resumeClient(takeReady(core));
    expect(seen).toEqual([1, 2]);
    expect(done).toBe(true);
  });

  it("throws a failed op into the waiting code, which may catch it", () => {
    const core = createCore();
    const op = new SimOp<number>(core);
    const caught: unknown[] = [];
    function* guarded(): Steps<void> {
      try {
        yield* op;
      } catch (e) {
        caught.push(e);
      }
    }
    const failures: unknown[] = [];
    startClient(
      core,
      guarded(),
      () => {},
      (e) => failures.push(e),
    );
    failOp(op, new Error("simulator bug"));
    expect(readyOf(core)).toHaveLength(1);
    resumeClient(takeReady(core));
    expect(caught.map((e) => (e as Error).message)).toEqual(["simulator bug"]);
    expect(failures).toEqual([]);
  });

  it("awaits a promise the code yields (a user's async lock) and throws its rejection in", async () => {
    const core = createCore();
    const results: unknown[] = [];
    function* mixed(): Steps<void> {
      results.push(yield* awaiting(Promise.resolve("value")));
      try {
        yield* awaiting(Promise.reject(new Error("rejected")));
      } catch (e) {
        results.push((e as Error).message);
      }
    }
    let done = false;
    startClient(
      core,
      mixed(),
      () => (done = true),
      (e) => {
        throw e;
      },
    );
    expect(core.microtasks).toBe(true); // the loop must drain the microtask queue now
    await new Promise((r) => setTimeout(r, 0));
    expect(results).toEqual(["value", "rejected"]);
    expect(done).toBe(true);
  });

  it("driveAsync runs the same code with promises: values in, rejections thrown in", async () => {
    function* code(): Steps<string> {
      const a = yield* awaiting(Promise.resolve(1));
      try {
        yield* awaiting(Promise.reject(new Error("no")));
      } catch (e) {
        return `${a}:${(e as Error).message}`;
      }
      return "not thrown";
    }
    expect(await driveAsync(code())).toBe("1:no");
  });
});

describe("a user's async algorithm in the simulator", () => {
  it("gets the same LockEnv on every call of its client, and another for each client", async () => {
    const envs = new Map<number, Set<LockEnv>>();
    const seen = (env: LockEnv) => {
      const set = envs.get(env.clientId) ?? new Set<LockEnv>();
      set.add(env);
      envs.set(env.clientId, set);
    };
    const alg: LockAlgorithm = {
      ...setOnce,
      acquire: (env, req) => {
        seen(env);
        return setOnce.acquire(env, req);
      },
      release: (env, handle) => {
        seen(env);
        return setOnce.release(env, handle);
      },
    };
    const cycles = Array.from({ length: 3 }, () => ({ thinkMs: 100, holdMs: 10, writes: 1 }));
    await simulate(
      scheduleOf({
        clients: [
          { id: 0, cycles },
          { id: 1, cycles },
        ],
      }),
      alg,
    );
    expect([...envs.values()].map((s) => s.size)).toEqual([1, 1]);
    expect(envs.get(0)).not.toEqual(envs.get(1));
  });

  it("waits at a checkpoint that pauses, and not at one that does not", async () => {
    const times: number[] = [];
    const alg = probe("redis", async (env) => {
      await env.checkpoint("acquire-sent");
      times.push(env.now());
      await env.checkpoint("acquire-sent");
      times.push(env.now());
    });
    const s = scheduleOf({
      faults: [{ kind: "pause-at", client: 0, checkpoint: "acquire-sent", occurrence: 1, durationMs: 300 }],
    });
    const { ops } = await simulate(s, alg);
    expect(invocation(ops, 0, "acquire").time).toBe(100 * 1_000_000);
    expect(times).toEqual([100, 400]);
  });
});
