import { describe, expect, it } from "vitest";
import { lockKey } from "../../src/locks/lease.js";
import { driftMs, makeRedlock, NODE_REDLOCK_RETRY, redlock } from "../../src/locks/redlock.js";
import { redlockNocheck } from "../../src/locks/redlock-nocheck.js";
import { type FakeClock, fakeRedisEnv } from "./fake-redis-env.js";

const req = { lock: "l", ttlMs: 1000, owner: "0:0" };
const key = lockKey("l");

describe("redlock", () => {
  it("is granted by a majority: 3 of 5 nodes", async () => {
    const clock: FakeClock = { now: 0 };
    const env = fakeRedisEnv(5, clock);
    env.nodes[3]!.unreachable = true;
    env.nodes[4]!.unreachable = true;
    const r = await redlock.acquire(env, req);
    expect(r.outcome).toBe("granted");
    expect(env.nodes.map((n) => n.peek(key))).toEqual(["0:0", "0:0", "0:0", undefined, undefined]);
    expect(env.checkpoints).toContain("acquire-sent");
  });

  it("without a majority, is denied and leaves no key behind", async () => {
    const clock: FakeClock = { now: 0 };
    const env = fakeRedisEnv(5, clock);
    for (const i of [2, 3, 4]) env.nodes[i]!.unreachable = true;
    const r = await redlock.acquire(env, req);
    expect(r).toEqual({ outcome: "denied", reason: "no-quorum" });
    expect(env.nodes.map((n) => n.peek(key))).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
  });

  it("retries as node-redlock does by default: at most 10 tries, 100–300 ms apart, within two TTLs", async () => {
    const clock: FakeClock = { now: 0 };
    const env = fakeRedisEnv(5, clock);
    for (const i of [2, 3, 4]) env.nodes[i]!.unreachable = true;
    const pauses: number[] = [];
    const r = await redlock.acquire(
      {
        ...env,
        sleep: async (ms) => {
          pauses.push(ms);
          clock.now += ms;
        },
      },
      req,
    );
    expect(r).toEqual({ outcome: "denied", reason: "no-quorum" });
    const tries = env.checkpoints.filter((p) => p === "acquire-sent").length;
    expect(tries).toBe(pauses.length + 1);
    expect(tries).toBeGreaterThanOrEqual(6); // 2 s of waiting at most 300 ms apart
    expect(tries).toBeLessThanOrEqual(10);
    for (const ms of pauses) {
      expect(ms).toBeGreaterThanOrEqual(100);
      expect(ms).toBeLessThanOrEqual(300);
    }
    expect(pauses.reduce((a, b) => a + b, 0)).toBeLessThan(2 * req.ttlMs);
    expect(new Set(pauses).size).toBeGreaterThan(1); // jittered
  });

  it("uses drift = 1% of the TTL + 2 ms", () => {
    expect(driftMs(1000)).toBe(12);
    expect(driftMs(10_000)).toBe(102);
  });

  it("is granted while validity = ttl − elapsed − drift stays positive, and denied at zero", async () => {
    const outcome = async (elapsed: number) => {
      const clock: FakeClock = { now: 0 };
      let paused = false;
      const env = fakeRedisEnv(5, clock, (p) => {
        if (p === "acquire-sent" && !paused) {
          paused = true;
          clock.now += elapsed;
        }
      });
      const r = await makeOneAttempt().acquire(env, req);
      return r.outcome;
    };
    // ttl 1000, drift 12: validity 1 ms at elapsed 987, 0 ms at 988.
    expect(await outcome(987)).toBe("granted");
    expect(await outcome(988)).toBe("denied");
  });

  it("a client paused while replies are in flight: redlock denies (and unlocks), redlock-nocheck grants", async () => {
    for (const [algo, expected] of [
      [redlock, "denied"],
      [redlockNocheck, "granted"],
    ] as const) {
      const clock: FakeClock = { now: 0 };
      // Every attempt is paused: a retry would otherwise succeed on the freshly unlocked nodes.
      const env = fakeRedisEnv(5, clock, (p) => {
        if (p === "acquire-sent") clock.now += 1500;
      });
      const r = await algo.acquire(env, req);
      expect(r.outcome, algo.name).toBe(expected);
      if (expected === "denied") {
        expect(r).toEqual({ outcome: "denied", reason: "validity-expired" });
        expect(env.nodes.every((n) => n.peek(key) === undefined)).toBe(true);
      }
    }
  });

  it("releases only its own keys", async () => {
    const clock: FakeClock = { now: 0 };
    const env = fakeRedisEnv(5, clock);
    const a = await redlock.acquire(env, req);
    if (a.outcome !== "granted") throw new Error("expected a grant");
    clock.now += 1000; // expired everywhere
    const b = await redlock.acquire(env, { ...req, owner: "1:0" });
    expect(b.outcome).toBe("granted");
    expect(await redlock.release(env, a.handle)).toEqual({ outcome: "not-held" });
    expect(env.nodes.every((n) => n.peek(key) === "1:0")).toBe(true);
  });
});

function makeOneAttempt() {
  return makeRedlock({
    name: "redlock-once",
    checkValidity: true,
    retry: { ...NODE_REDLOCK_RETRY, attempts: 1 },
  });
}
