/** The protected resource: unfenced accepts all, fenced rejects lower tokens, fenced-txn checks the lock key. */
import { describe, expect, it } from "vitest";
import type { LockEnv, ResourceWrite } from "../../src/env/env.js";
import type { WriteOp } from "../../src/history/op.js";
import { consensus } from "../../src/locks/consensus.js";
import { leaseToken } from "../../src/locks/lease-token.js";
import { createResourceNode, writeResource } from "../../src/sim/servers/resource.js";
import { simulate } from "../../src/sim/simulate.js";
import { probe, scheduleOf } from "./helpers.js";

const w = (token: bigint | null): ResourceWrite => ({ lock: "L", grant: "0:0", token, value: "v" });

describe("the resource node", () => {
  it("unfenced accepts every write, answering its apply sequence number", () => {
    const r = createResourceNode(false);
    expect([w(5n), w(3n), w(null)].map((x) => writeResource(r, x))).toEqual([1, 2, 3]);
  });

  it("fenced accepts equal and higher tokens, rejects lower ones and missing ones", () => {
    const r = createResourceNode(true);
    // Accepted: its apply sequence number; rejected: 0.
    expect([w(5n), w(5n), w(3n), w(7n), w(6n), w(null)].map((x) => writeResource(r, x))).toEqual([
      1, 2, 0, 3, 0, 0,
    ]);
  });

  it("fenced tokens compare as BigInts beyond 2^53", () => {
    const r = createResourceNode(true);
    const big = 2n ** 60n;
    expect([w(big + 1n), w(big)].map((x) => writeResource(r, x))).toEqual([1, 0]);
  });
});

describe("fenced-txn", () => {
  it("writes only while the lock key's create revision equals the token", async () => {
    const accepted: boolean[] = [];
    const seqs: (bigint | undefined)[] = [];
    const alg = probe("etcd", async (env: LockEnv) => {
      const grant = await consensus.acquire(env, { lock: "L", ttlMs: 5000, owner: "0:0" });
      if (grant.outcome !== "granted") throw new Error("not granted");
      const write = async (token: bigint | null) => {
        const r = await env.resource.write({ lock: "L", grant: "0:0", token, value: "v" });
        accepted.push(r.ok && r.value.accepted);
        seqs.push(r.ok ? r.value.seq : undefined);
      };
      await write(grant.token);
      await write(grant.token! - 1n);
      await write(null);
      await consensus.release(env, grant.handle);
      await write(grant.token);
    });
    await simulate(scheduleOf({ servers: 3, resource: "fenced-txn" }), alg);
    expect(accepted).toEqual([true, false, false, false]);
    // The accepted txn's revision is its apply order: after the lock key's creation.
    expect(seqs[0]).toBeGreaterThan(0n);
    expect(seqs.slice(1)).toEqual([undefined, undefined, undefined]);
  });

  it("is refused for targets without an etcd-like cluster", () => {
    expect(() =>
      simulate(
        scheduleOf({ resource: "fenced-txn" }),
        probe("redis", async () => {}),
      ),
    ).toThrow(/fenced-txn/);
  });
});

describe("the resource's apply order in simulated histories", () => {
  it("every accepted write carries seq, in the order the resource applied them; rejected ones none", async () => {
    const clients = [0, 1, 2].map((id) => ({
      id,
      cycles: [{ thinkMs: 5 * id, holdMs: 600, writes: 3 }],
    }));
    const pause = { kind: "pause" as const, node: "client:0", at: 20, durationMs: 1500 };
    for (const resource of ["unfenced", "fenced"] as const) {
      const run = await simulate(scheduleOf({ resource, clients, faults: [pause] }), leaseToken);
      const completions = run.ops.filter(
        (o): o is WriteOp => o.process !== "nemesis" && o.f === "write" && o.type === "ok",
      );
      const accepted = completions.filter((o) => o.accepted === true);
      expect(accepted.length).toBeGreaterThan(2);
      expect(completions.filter((o) => o.accepted === false).every((o) => o.seq === undefined)).toBe(true);
      // One resource node: its counter numbers the accepted writes 1, 2, … (in any reply order).
      expect(accepted.map((o) => o.seq!).sort((a, b) => (a < b ? -1 : 1))).toEqual(
        accepted.map((_, i) => BigInt(i + 1)),
      );
    }
  });
});
