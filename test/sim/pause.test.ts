/**
 * Process pauses: a paused client runs no timers and no handlers; replies to it queue and
 * are handled when it resumes; the rest of the world goes on meanwhile. Latency is a fixed
 * 10 ms each way so every time below is exact.
 */
import { describe, expect, it } from "vitest";
import { NOT_PAUSED } from "../../src/env/env.js";
import { simulate } from "../../src/sim/simulate.js";
import { completion, invocation, MS, nemesisOps, probe, scheduleOf, setOnce } from "./helpers.js";

describe("a paused client", () => {
  it("runs no timers while paused: a sleep due during the pause ends at the resume", async () => {
    // Think time 100 ms; the client is paused from 50 ms to 1050 ms.
    const s = scheduleOf({ faults: [{ kind: "pause", node: "client:0", at: 50, durationMs: 1000 }] });
    const { ops } = await simulate(s, setOnce);
    expect(invocation(ops, 0, "acquire").time).toBe(1050 * MS);
    expect(nemesisOps(ops).map((op) => [op.f, op.node, op.time])).toEqual([
      ["pause", "client:0", 50 * MS],
      ["resume", "client:0", 1050 * MS],
    ]);
  });

  it("queues replies: a reply that arrives during the pause is handled at the resume", async () => {
    // The request leaves at 100 ms and the reply arrives at 120 ms, in the pause [115, 615).
    const s = scheduleOf({ faults: [{ kind: "pause", node: "client:0", at: 115, durationMs: 500 }] });
    const { ops } = await simulate(s, setOnce);
    const ok = completion(ops, 0, "acquire");
    expect(ok.type).toBe("ok");
    expect(ok.time).toBe(615 * MS);
  });

  it("does not stop the world: the server handles its request and other clients go on", async () => {
    // Client 0's SET lands at 110 ms although client 0 is paused from 105 ms; client 1 tries at 300 ms.
    const s = scheduleOf({
      clients: [
        { id: 0, cycles: [{ thinkMs: 100, holdMs: 0, writes: 0 }] },
        { id: 1, cycles: [{ thinkMs: 300, holdMs: 0, writes: 0 }] },
      ],
      options: { ttlMs: 10_000 },
      faults: [{ kind: "pause", node: "client:0", at: 105, durationMs: 2000 }],
    });
    const { ops } = await simulate(s, setOnce);
    const other = completion(ops, 1, "acquire");
    expect([other.type, other.error, other.time]).toEqual(["fail", "held", 320 * MS]);
    expect(completion(ops, 0, "acquire").time).toBe(2105 * MS);
  });

  it("handles queued replies before timers that came due: a reply beats the timeout it overlapped", async () => {
    // Call timeout 200 ms (due at 300 ms) and reply at 120 ms both fall in the pause [115, 1115).
    const s = scheduleOf({
      options: { callTimeoutMs: 200 },
      faults: [{ kind: "pause", node: "client:0", at: 115, durationMs: 1000 }],
    });
    const { ops } = await simulate(s, setOnce);
    expect(completion(ops, 0, "acquire").type).toBe("ok");
  });

  it("the timeout that came due under a reply does not touch the client's next call", async () => {
    // As above, then a second call at the resume: it must get its own answer, not that
    // stale timeout (the first call's object may be reused for the second).
    const results: string[] = [];
    const alg = probe("redis", async (env) => {
      for (let i = 0; i < 2; i++) {
        const r = await env.redis[0]!.setNxPx(`k${i}`, "v", 1000);
        results.push(r.ok ? `ok ${r.value} at ${env.now()}` : `${r.error.kind} at ${env.now()}`);
      }
    });
    const s = scheduleOf({
      options: { callTimeoutMs: 200 },
      faults: [{ kind: "pause", node: "client:0", at: 115, durationMs: 1000 }],
    });
    await simulate(s, alg);
    expect(results).toEqual(["ok true at 1115", "ok true at 1135"]);
  });

  it("pauses at a checkpoint: frozen for the duration at the n-th time it reaches it", async () => {
    const seen: number[] = [];
    const alg = probe("redis", async (env) => {
      for (let i = 0; i < 3; i++) {
        await env.checkpoint("before-write");
        seen.push(env.now());
      }
    });
    const s = scheduleOf({
      faults: [{ kind: "pause-at", client: 0, checkpoint: "before-write", occurrence: 1, durationMs: 700 }],
    });
    const { ops } = await simulate(s, alg);
    expect(seen).toEqual([100, 800, 800]);
    expect(nemesisOps(ops).map((op) => [op.f, op.node, op.time])).toEqual([
      ["pause", "client:0", 100 * MS],
      ["resume", "client:0", 800 * MS],
    ]);
  });

  it("a checkpoint that does not pause returns NOT_PAUSED; one that pauses, a promise that waits", async () => {
    const seen: { client: number; notPaused: boolean; before: number; after: number }[] = [];
    const alg = probe("redis", async (env) => {
      for (let i = 0; i < 2; i++) {
        const before = env.now();
        const p = env.checkpoint("acquire-sent");
        const notPaused = p === NOT_PAUSED;
        await p;
        seen.push({ client: env.clientId, notPaused, before, after: env.now() });
      }
    });
    const s = scheduleOf({
      clients: [
        { id: 0, cycles: [{ thinkMs: 100, holdMs: 0, writes: 0 }] },
        { id: 1, cycles: [{ thinkMs: 100, holdMs: 0, writes: 0 }] },
      ],
      faults: [{ kind: "pause-at", client: 0, checkpoint: "acquire-sent", occurrence: 1, durationMs: 300 }],
    });
    await simulate(s, alg);
    expect(seen).toEqual([
      { client: 0, notPaused: true, before: 100, after: 100 },
      { client: 1, notPaused: true, before: 100, after: 100 },
      { client: 1, notPaused: true, before: 100, after: 100 },
      { client: 0, notPaused: false, before: 100, after: 400 },
    ]);
  });

  it("the workload waits at a checkpoint that pauses", async () => {
    // Granted at 120 ms; paused at "acquired" for 500 ms and at "before-release" for 200 ms.
    const s = scheduleOf({
      faults: [
        { kind: "pause-at", client: 0, checkpoint: "acquired", occurrence: 0, durationMs: 500 },
        { kind: "pause-at", client: 0, checkpoint: "before-release", occurrence: 0, durationMs: 200 },
      ],
    });
    const { ops } = await simulate(s, setOnce);
    expect(completion(ops, 0, "acquire").time).toBe(120 * MS);
    expect(invocation(ops, 0, "release").time).toBe(820 * MS);
  });

  it("nests overlapping pauses: runs again only when the last one ends", async () => {
    const s = scheduleOf({
      faults: [
        { kind: "pause", node: "client:0", at: 50, durationMs: 500 },
        { kind: "pause", node: "client:0", at: 300, durationMs: 1000 },
      ],
    });
    const { ops } = await simulate(s, setOnce);
    expect(invocation(ops, 0, "acquire").time).toBe(1300 * MS);
  });
});

describe("a paused server", () => {
  it("queues requests and answers them in order when it resumes", async () => {
    // The request reaches server:0 at 110 ms, during its pause [105, 605); the reply arrives at 615 ms.
    const s = scheduleOf({ faults: [{ kind: "pause", node: "server:0", at: 105, durationMs: 500 }] });
    const { ops } = await simulate(s, setOnce);
    const ok = completion(ops, 0, "acquire");
    expect([ok.type, ok.time]).toEqual(["ok", 615 * MS]);
  });
});

describe("a crashed client", () => {
  it("never completes its pending call itself: it ends as info when the run ends", async () => {
    const s = scheduleOf({
      options: { horizonMs: 1000 },
      faults: [
        { kind: "crash", node: "client:0", at: 105, restartAfterMs: 100 },
        // After every client has finished or crashed the run is over: this is never run.
        { kind: "pause", node: "server:0", at: 500, durationMs: 10 },
      ],
    });
    const run = await simulate(s, setOnce);
    const end = completion(run.ops, 0, "acquire");
    expect([end.type, end.error, end.time]).toEqual(["info", "crashed", 105 * MS]);
    expect(run.stats.virtualMs).toBe(105);
    // Clients are never restarted.
    expect(nemesisOps(run.ops).map((op) => op.f)).toEqual(["crash"]);
  });
});

describe("a broken client", () => {
  it("fails the run with an error naming the client", async () => {
    const alg = probe("redis", async (env) => {
      await env.sleep(10);
      if (env.clientId === 1) throw new Error("boom");
    });
    const s = scheduleOf({
      clients: [0, 1].map((id) => ({ id, cycles: [{ thinkMs: 0, holdMs: 0, writes: 0 }] })),
    });
    await expect(simulate(s, alg)).rejects.toThrow(/client 1 \(probe\) threw/);
  });

  it("that loops without waiting is stopped by the event budget", async () => {
    const alg = probe("redis", async (env) => {
      for (;;) await env.sleep(0);
    });
    await expect(simulate(scheduleOf({}), alg, { maxEvents: 10_000 })).rejects.toThrow(
      /gave up after 10000 events/,
    );
  });
});
