/**
 * Clocks: a jump moves the wall clock (now(), Redis expiry) but not timers; drift changes
 * the rate of both.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  createClock,
  jumpClock,
  monoAt,
  monoDeadline,
  setClockRate,
  trueTimeOfMono,
  wallAt,
} from "../../src/sim/clock.js";
import { simulate } from "../../src/sim/simulate.js";
import { completion, invocation, MS, probe, scheduleOf, setOnce } from "./helpers.js";

describe("the clock model", () => {
  it("jumps move the wall clock only; drift changes the rate of both from its start", () => {
    const c = createClock();
    jumpClock(c, 500);
    expect([monoAt(c, 100), wallAt(c, 100)]).toEqual([100, 600]);
    setClockRate(c, 100, 1); // twice as fast from t = 100
    expect([monoAt(c, 200), wallAt(c, 200)]).toEqual([300, 800]);
    expect(trueTimeOfMono(c, 500, 200)).toBe(300);
    expect(trueTimeOfMono(c, 0, 200)).toBe(200); // never in the past
  });

  it("a wait ends when the clock reads its deadline, never at the instant it began, whatever the rounding", () => {
    const drift = fc.record({
      at: fc.double({ min: 0, max: 30_000, noNaN: true }),
      rate: fc.double({ min: -0.9, max: 0.9, noNaN: true }),
    });
    fc.assert(
      fc.property(
        fc.array(drift, { maxLength: 4 }),
        fc.double({ min: 0, max: 10_000, noNaN: true }),
        // Delays down to a hair: what code waits for when it has almost nothing left.
        fc.oneof(
          fc.double({ min: 0, max: 2_000, noNaN: true }),
          fc.double({ min: 0, max: 1e-9, noNaN: true }),
        ),
        (drifts, after, delay) => {
          const c = createClock();
          let t = 0;
          for (const d of [...drifts].sort((a, b) => a.at - b.at)) {
            setClockRate(c, d.at, d.rate);
            t = d.at;
          }
          const now = t + after;
          const deadline = monoDeadline(c, now, delay);
          expect(deadline).toBeGreaterThanOrEqual(monoAt(c, now) + delay);
          const due = trueTimeOfMono(c, deadline, now);
          // A wait, however short, ends later than now: never at the instant it began.
          if (delay > 0) expect(due).toBeGreaterThan(now);
          else expect(due).toBe(now);
          expect(monoAt(c, due)).toBeGreaterThanOrEqual(deadline);
          // …and no more than a hair after the exact quotient.
          const exact = c.t0 + (deadline - c.mono0) / (1 + c.rate);
          expect(due - Math.max(now, exact)).toBeLessThanOrEqual(Math.max(now, exact) * 1e-12);
        },
      ),
      { numRuns: 2000 },
    );
  });
});

describe("a Redis-like node's clock", () => {
  const twoClients = {
    clients: [
      { id: 0, cycles: [{ thinkMs: 100, holdMs: 5000, writes: 0 }] },
      { id: 1, cycles: [{ thinkMs: 300, holdMs: 0, writes: 0 }] },
    ],
    options: { ttlMs: 1000 },
  };

  it("expires a key early after a forward jump", async () => {
    // Client 0 sets the key at 110 ms with a 1000 ms TTL (and holds on); client 1 asks at 310 ms.
    const held = await simulate(scheduleOf(twoClients), setOnce);
    expect(completion(held.ops, 1, "acquire").type).toBe("fail");
    const jumped = await simulate(
      scheduleOf({
        ...twoClients,
        faults: [{ kind: "clock-jump", node: "server:0", at: 200, deltaMs: 1000 }],
      }),
      setOnce,
    );
    expect(completion(jumped.ops, 1, "acquire").type).toBe("ok");
  });

  it("keeps a key longer after a backward jump", async () => {
    const late = {
      ...twoClients,
      clients: [twoClients.clients[0]!, { id: 1, cycles: [{ thinkMs: 1500, holdMs: 0, writes: 0 }] }],
    };
    const plain = await simulate(scheduleOf(late), setOnce);
    expect(completion(plain.ops, 1, "acquire").type).toBe("ok");
    const back = await simulate(
      scheduleOf({ ...late, faults: [{ kind: "clock-jump", node: "server:0", at: 200, deltaMs: -1000 }] }),
      setOnce,
    );
    expect(completion(back.ops, 1, "acquire").type).toBe("fail");
  });
});

describe("a client's clock", () => {
  it("jumps change now() but not how long a sleep lasts", async () => {
    const seen: number[] = [];
    const alg = probe("redis", async (env) => {
      seen.push(env.now());
      await env.sleep(1000);
      seen.push(env.now());
    });
    const s = scheduleOf({ faults: [{ kind: "clock-jump", node: "client:0", at: 500, deltaMs: 5000 }] });
    const { ops } = await simulate(s, alg);
    expect(seen).toEqual([100, 6100]);
    expect(completion(ops, 0, "acquire").time).toBe(1100 * MS);
  });

  it("drift makes sleeps end earlier in true time, and pending timers move with it", async () => {
    // Sleep 1000 ms from t = 100; at t = 600 the clock starts running twice as fast: the
    // remaining 500 ms of its clock pass in 250 ms of true time.
    const alg = probe("redis", async (env) => {
      await env.sleep(1000);
    });
    const s = scheduleOf({ faults: [{ kind: "clock-drift", node: "client:0", at: 600, rate: 1 }] });
    const { ops } = await simulate(s, alg);
    expect(invocation(ops, 0, "acquire").time).toBe(100 * MS);
    expect(completion(ops, 0, "acquire").time).toBe(850 * MS);
  });

  it("slow drift stretches call timeouts in true time", async () => {
    // server:0 is partitioned away, so the call can only time out: after 200 ms of the
    // client's clock, which runs at half speed: 400 ms of true time.
    const s = scheduleOf({
      options: { callTimeoutMs: 200 },
      faults: [
        { kind: "clock-drift", node: "client:0", at: 0, rate: -0.5 },
        { kind: "partition", at: 0, durationMs: 10_000, a: ["client:0"], b: ["server:0"], oneWay: false },
      ],
    });
    const { ops } = await simulate(s, setOnce);
    const end = completion(ops, 0, "acquire");
    expect(end.type).toBe("info");
    // Think 100 ms of client time = 200 ms true; then 400 ms of timeout.
    expect(end.time).toBe(600 * MS);
  });
});
