/**
 * The network: partitions (both ways and one way) lose messages, delays hold messages back,
 * crashed nodes refuse, latency stays within its bounds.
 */
import { describe, expect, it } from "vitest";
import type { LockEnv } from "../../src/env/env.js";
import { simulate } from "../../src/sim/simulate.js";
import { completion, MS, probe, scheduleOf, setOnce } from "./helpers.js";

const contenders = {
  clients: [
    { id: 0, cycles: [{ thinkMs: 100, holdMs: 0, writes: 0 }] },
    { id: 1, cycles: [{ thinkMs: 1000, holdMs: 0, writes: 0 }] },
  ],
  options: { ttlMs: 60_000, callTimeoutMs: 500 },
};

describe("partitions", () => {
  it("lose the request: the call times out and the server never saw it", async () => {
    const s = scheduleOf({
      ...contenders,
      faults: [
        { kind: "partition", at: 50, durationMs: 200, a: ["client:0"], b: ["server:0"], oneWay: false },
      ],
    });
    const { ops } = await simulate(s, setOnce);
    const lost = completion(ops, 0, "acquire");
    expect([lost.type, lost.error, lost.time]).toEqual(["info", "timeout", 600 * MS]);
    expect(completion(ops, 1, "acquire").type).toBe("ok");
  });

  it("one way: the request arrives, the reply is lost", async () => {
    const s = scheduleOf({
      ...contenders,
      faults: [
        { kind: "partition", at: 50, durationMs: 200, a: ["server:0"], b: ["client:0"], oneWay: true },
      ],
    });
    const { ops } = await simulate(s, setOnce);
    expect(completion(ops, 0, "acquire").type).toBe("info");
    // The SET took effect: client 1 finds the key held.
    expect(completion(ops, 1, "acquire").type).toBe("fail");
  });

  it("drop messages in flight when the cut starts before they arrive", async () => {
    // The reply leaves server:0 at 110 ms and would arrive at 120 ms; the cut starts at 115 ms.
    const s = scheduleOf({
      ...contenders,
      faults: [
        { kind: "partition", at: 115, durationMs: 100, a: ["client:0"], b: ["server:0"], oneWay: false },
      ],
    });
    const { ops } = await simulate(s, setOnce);
    expect(completion(ops, 0, "acquire").type).toBe("info");
  });

  it("heal: calls after the heal go through", async () => {
    const s = scheduleOf({
      ...contenders,
      faults: [{ kind: "partition", at: 0, durationMs: 50, a: ["client:0"], b: ["server:0"], oneWay: false }],
    });
    const { ops } = await simulate(s, setOnce);
    expect(completion(ops, 0, "acquire").type).toBe("ok");
  });
});

describe("delays", () => {
  it("hold a message back by extraMs, and the messages behind it on the same link", async () => {
    const times: number[] = [];
    const alg = probe("redis", async (env: LockEnv) => {
      const first = env.redis[0]!.setNxPx("a", "x", 1000);
      await env.sleep(1);
      const second = env.redis[0]!.setNxPx("b", "x", 1000);
      await first;
      times.push(env.now());
      await second;
      times.push(env.now());
    });
    const s = scheduleOf({
      faults: [{ kind: "delay", from: "client:0", to: "server:0", at: 100, durationMs: 1, extraMs: 300 }],
    });
    await simulate(s, alg);
    // The first request arrives 310 ms after it left, the second (not delayed itself) right after it.
    expect(times).toEqual([420, 420]);
  });
});

describe("crashes", () => {
  it("a crashed Redis-like node refuses calls and restarts empty", async () => {
    const s = scheduleOf({
      clients: [
        { id: 0, cycles: [{ thinkMs: 100, holdMs: 0, writes: 0 }] },
        { id: 1, cycles: [{ thinkMs: 300, holdMs: 0, writes: 0 }] },
        { id: 2, cycles: [{ thinkMs: 1000, holdMs: 0, writes: 0 }] },
      ],
      options: { ttlMs: 60_000 },
      faults: [{ kind: "crash", node: "server:0", at: 200, restartAfterMs: 500 }],
    });
    const { ops } = await simulate(s, setOnce);
    expect(completion(ops, 0, "acquire").type).toBe("ok");
    const refused = completion(ops, 1, "acquire");
    expect([refused.type, refused.error, refused.time]).toEqual(["fail", "unreachable", 320 * MS]);
    // After the restart the key client 0 set is gone.
    expect(completion(ops, 2, "acquire").type).toBe("ok");
  });
});

describe("latency", () => {
  it("stays within [min, max] and differs between messages", async () => {
    const rtts: number[] = [];
    const alg = probe("redis", async (env: LockEnv) => {
      for (let i = 0; i < 50; i++) {
        const t = env.now();
        await env.redis[0]!.incr("n");
        rtts.push(env.now() - t);
      }
    });
    await simulate(scheduleOf({ options: { latencyMs: { min: 2, max: 8 } } }), alg);
    expect(Math.min(...rtts)).toBeGreaterThanOrEqual(4);
    expect(Math.max(...rtts)).toBeLessThanOrEqual(16);
    expect(new Set(rtts).size).toBeGreaterThan(40);
  });
});
