import { describe, expect, it } from "vitest";
import { lease, lockKey } from "../../src/locks/lease.js";
import { leaseToken } from "../../src/locks/lease-token.js";
import { type FakeClock, fakeRedisEnv } from "./fake-redis-env.js";

const req = (owner: string) => ({ lock: "l", ttlMs: 1000, owner });

describe("lease", () => {
  it("grants, then makes a second client wait until the first lease expires", async () => {
    const clock: FakeClock = { now: 0 };
    const env = fakeRedisEnv(1, clock);
    const a = await lease.acquire(env, req("0:0"));
    expect(a.outcome).toBe("granted");
    if (a.outcome === "granted") expect(a.token).toBeNull();
    const b = await lease.acquire(env, req("1:0"));
    // The fake's sleep advances the shared clock: b retried until a's key expired at 1000.
    expect(b.outcome).toBe("granted");
    expect(clock.now).toBeGreaterThanOrEqual(1000);
    expect(env.nodes[0]!.peek(lockKey("l"))).toBe("1:0");
  });

  it("gives up after waiting two TTLs for a key that never expires", async () => {
    const clock: FakeClock = { now: 0 };
    const env = fakeRedisEnv(1, clock);
    // A holder with a huge TTL: the waiter must stop on its own bound.
    await lease.acquire(env, { lock: "l", ttlMs: 1_000_000, owner: "9:0" });
    const b = await lease.acquire(env, req("1:0"));
    expect(b).toEqual({ outcome: "denied", reason: "held" });
    expect(clock.now).toBeLessThanOrEqual(2000);
  });

  it("release deletes only the caller's own key", async () => {
    const clock: FakeClock = { now: 0 };
    const env = fakeRedisEnv(1, clock);
    const a = await lease.acquire(env, req("0:0"));
    if (a.outcome !== "granted") throw new Error("expected a grant");
    clock.now += 1000;
    await lease.acquire(env, req("1:0"));
    expect(await lease.release(env, a.handle)).toEqual({ outcome: "not-held" });
    expect(env.nodes[0]!.peek(lockKey("l"))).toBe("1:0");
  });

  it("an unreachable node: denied, not unknown (the request never arrived)", async () => {
    const env = fakeRedisEnv(1, { now: 0 });
    env.nodes[0]!.unreachable = true;
    expect(await lease.acquire(env, req("0:0"))).toEqual({ outcome: "denied", reason: "unreachable" });
  });
});

describe("lease-token", () => {
  it("hands out strictly increasing tokens, one INCR per grant", async () => {
    const clock: FakeClock = { now: 0 };
    const env = fakeRedisEnv(1, clock);
    const tokens: (bigint | null)[] = [];
    for (let i = 0; i < 4; i++) {
      const r = await leaseToken.acquire(env, req(`${i}:0`));
      if (r.outcome !== "granted") throw new Error("expected a grant");
      tokens.push(r.token);
      await leaseToken.release(env, r.handle);
    }
    expect(tokens).toEqual([1n, 2n, 3n, 4n]);
  });
});
