/** The zk-like ensemble: sessions expire without heartbeats, taking their ephemeral nodes; zxids grow. */
import { describe, expect, it } from "vitest";
import type { LockEnv } from "../../src/env/env.js";
import { prepareSimulation } from "../../src/sim/simulate.js";
import { probe, scheduleOf } from "./helpers.js";

function zkOf(env: LockEnv) {
  if (env.zk === null) throw new Error("no zk");
  return env.zk;
}

describe("the zk-like ensemble", () => {
  it("orders ephemeral sequential nodes, raises the zxid, and expires silent sessions", async () => {
    const created: { client: number; seq: number; zxid: bigint }[] = [];
    const listings: string[][] = [];
    const alg = probe("zk", async (env) => {
      const zk = zkOf(env);
      const session = await zk.createSession(1000);
      if (!session.ok) throw new Error("no session");
      await env.sleep(20 * env.clientId);
      const node = await zk.createEphemeralSequential(session.value.sessionId, "/lock");
      if (!node.ok) throw new Error("create failed");
      created.push({ client: env.clientId, seq: node.value.seq, zxid: node.value.zxid });
      if (env.clientId === 0) return; // never heartbeats: its session expires
      for (let i = 0; i < 10; i++) {
        await env.sleep(300);
        await zk.heartbeat(session.value.sessionId);
        if (i === 0 || i === 9) {
          const kids = await zk.children("/lock");
          if (kids.ok) listings.push(kids.value.map((k) => k.path));
        }
      }
    });
    const s = scheduleOf({
      servers: 3,
      clients: [0, 1].map((id) => ({ id, cycles: [{ thinkMs: 100, holdMs: 0, writes: 0 }] })),
    });
    const sim = prepareSimulation(s, alg);
    await sim.run();
    expect(created.map((c) => [c.client, c.seq])).toEqual([
      [0, 0],
      [1, 1],
    ]);
    expect(created[1]!.zxid).toBeGreaterThan(created[0]!.zxid);
    expect(listings).toEqual([["/lock-0000000000", "/lock-0000000001"], ["/lock-0000000001"]]);
    const leader = sim.world.zk!.cluster.members[0]!;
    expect(leader.sm.sessions.size).toBe(1);
  });

  it("refuses to create a node for an expired session", async () => {
    let outcome: unknown;
    const alg = probe("zk", async (env) => {
      const zk = zkOf(env);
      const session = await zk.createSession(500);
      if (!session.ok) throw new Error("no session");
      await env.sleep(2000);
      const r = await zk.createEphemeralSequential(session.value.sessionId, "/lock");
      outcome = r.ok ? "created" : r.error;
    });
    await prepareSimulation(scheduleOf({ servers: 3 }), alg).run();
    expect(outcome).toEqual({ kind: "unreachable", node: "zk", detail: "session expired" });
  });
});
