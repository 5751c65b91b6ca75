/**
 * The etcd-like cluster: leader replacement, no commit without a majority, strictly
 * increasing revisions, lease expiry by the leader, leases surviving a leader change.
 */
import { describe, expect, it } from "vitest";
import { checkOps } from "../../src/checkers/index.js";
import type { LockEnv } from "../../src/env/env.js";
import { consensus } from "../../src/locks/consensus.js";
import { linkBetween, sendThunk } from "../../src/sim/network.js";
import { at } from "../../src/sim/scheduler.js";
import type { EtcdCmd, EtcdRes } from "../../src/sim/servers/etcd.js";
import type { Submitted } from "../../src/sim/servers/raft.js";
import { prepareSimulation, simulate } from "../../src/sim/simulate.js";
import type { SimWorld } from "../../src/sim/world.js";
import { nemesisOps, probe, scheduleOf } from "./helpers.js";

function etcdOf(env: LockEnv) {
  if (env.etcd === null) throw new Error("no etcd");
  return env.etcd;
}

function leaderName(w: SimWorld): string | null {
  return w.etcd!.cluster.leader()?.name ?? null;
}

/** Records `f(world)` at each of `times` (ms) during the run. */
function sampleAt<T>(w: SimWorld, times: readonly number[], f: (w: SimWorld) => T): T[] {
  const out: T[] = [];
  for (const t of times) at(w.core, t, () => out.push(f(w)));
  return out;
}

const waitFor = (env: LockEnv, untilMs: number) => env.sleep(Math.max(0, untilMs - env.now()));

describe("the etcd-like cluster", () => {
  it("replaces a paused leader, and the old one follows when it wakes", async () => {
    const alg = probe("etcd", (env) => env.sleep(12_000));
    const s = scheduleOf({
      servers: 3,
      faults: [{ kind: "pause", node: "server:leader", at: 1000, durationMs: 5000 }],
    });
    const sim = prepareSimulation(s, alg);
    const leaders = sampleAt(sim.world, [900, 5000, 8000], leaderName);
    const terms = sampleAt(sim.world, [900, 8000], (w) => w.etcd!.cluster.members.map((m) => m.term));
    const run = await sim.run();
    expect(nemesisOps(run.ops).map((op) => [op.f, op.node])).toEqual([
      ["pause", "server:0"],
      ["resume", "server:0"],
    ]);
    expect(leaders[0]).toBe("server:0");
    expect(leaders[1]).toMatch(/^server:[12]$/);
    expect(leaders[2]).toBe(leaders[1]);
    const [before, after] = terms as [number[], number[]];
    expect(Math.min(...after)).toBeGreaterThan(Math.max(...before));
    expect(sim.world.etcd!.cluster.members[0]!.role).toBe("follower");
  });

  it("a deposed leader that wakes accepts a request but commits nothing without a majority", async () => {
    // server:0 leads; it is paused at 1 s (to 4 s) and cut off from the other members until
    // 11 s. A client's request reaches it during the pause and waits in its inbox. (Sent to
    // server:0 itself: an etcd client asks a member drawn at random.)
    let answer: Submitted<EtcdRes> | undefined;
    const alg = probe("etcd", (env) => waitFor(env, 15_000));
    const s = scheduleOf({
      servers: 3,
      faults: [
        { kind: "pause", node: "server:0", at: 1000, durationMs: 3000 },
        {
          kind: "partition",
          at: 1000,
          durationMs: 10_000,
          a: ["server:0"],
          b: ["server:1", "server:2"],
          oneWay: false,
        },
      ],
    });
    const sim = prepareSimulation(s, alg);
    const w = sim.world;
    const cluster = w.etcd!.cluster;
    at(w.core, 2000, () => {
      const link = linkBetween(w.net, w.net.nodes.get("client:0")!, cluster.members[0]!.node);
      const grant: EtcdCmd = { op: "lease-grant", ttlMs: 5000 };
      sendThunk(w.net, link, () =>
        cluster.submit(
          0,
          grant,
          (_: null, s: Submitted<EtcdRes>) => {
            answer = s;
          },
          null,
        ),
      );
    });
    const m0 = () => sim.world.etcd!.cluster.members[0]!;
    const before = sampleAt(sim.world, [999], () => ({ log: m0().log.length, commit: m0().commitIndex }));
    const duringWake = sampleAt(sim.world, [4000.5], () => ({
      log: m0().log.length,
      commit: m0().commitIndex,
    }));
    await sim.run();
    // It appended the request (log grew) yet its commit index did not move.
    expect(duringWake[0]!.log).toBeGreaterThan(before[0]!.log);
    expect(duringWake[0]!.commit).toBe(before[0]!.commit);
    expect(answer).toEqual({ kind: "leader-changed" });
    // The grant was never applied anywhere, and after the heal member 0's log agrees with the others.
    for (const m of sim.world.etcd!.cluster.members) expect(m.sm.leases.size).toBe(0);
    const logs = sim.world.etcd!.cluster.members.map((m) =>
      m.log.slice(0, m.commitIndex + 1).map((e) => e.term),
    );
    expect(logs[0]).toEqual(logs[1]!.slice(0, logs[0]!.length));
  });

  it("expires a lease that is not kept alive, deleting its keys, and keeps one that is", async () => {
    const seen: Record<string, unknown> = {};
    const alg = probe("etcd", async (env) => {
      const etcd = etcdOf(env);
      if (env.clientId === 0) {
        const lease = await etcd.leaseGrant(1000);
        if (!lease.ok) throw new Error("grant failed");
        await etcd.createIfAbsent("/k", "v", lease.value.leaseId);
        return;
      }
      if (env.clientId === 1) {
        const lease = await etcd.leaseGrant(1000);
        if (!lease.ok) throw new Error("grant failed");
        await etcd.createIfAbsent("/kept", "v", lease.value.leaseId);
        for (let i = 0; i < 12; i++) {
          await env.sleep(300);
          await etcd.leaseKeepAlive(lease.value.leaseId);
        }
        return;
      }
      await waitFor(env, 600);
      seen.early = (await etcd.get("/k")).ok;
      const early = await etcd.get("/k");
      seen.earlyPresent = early.ok && early.value !== null;
      await waitFor(env, 2500);
      const late = await etcd.get("/k");
      seen.latePresent = late.ok && late.value !== null;
      const kept = await etcd.get("/kept");
      seen.keptPresent = kept.ok && kept.value !== null;
    });
    const s = scheduleOf({
      servers: 3,
      clients: [0, 1, 2].map((id) => ({ id, cycles: [{ thinkMs: 100, holdMs: 0, writes: 0 }] })),
    });
    const sim = prepareSimulation(s, alg);
    const revisions = sampleAt(sim.world, [500, 3000], (w) => w.etcd!.cluster.members[0]!.sm.revision);
    await sim.run();
    expect(seen).toEqual({ early: true, earlyPresent: true, latePresent: false, keptPresent: true });
    // Deleting the expired lease's key was one more transaction.
    expect(revisions[1]! - revisions[0]!).toBe(1n);
  });

  it.each([
    ["latest", "500 ms after its TTL ran out, as late as etcd's lessor loop can", [true, false]],
    ["earliest", "as soon as its TTL ran out, as early as etcd's lessor loop can", [false, false]],
  ] as const)("with lease ends %s (default latest): expires a lease %s", async (leaseEnd, _, expected) => {
    const alg = probe("etcd", async (env) => {
      const etcd = etcdOf(env);
      const lease = await etcd.leaseGrant(1000);
      if (!lease.ok) throw new Error("grant failed");
      await etcd.createIfAbsent("/k", "v", lease.value.leaseId);
      await waitFor(env, 3000);
    });
    const s = scheduleOf({
      servers: 3,
      clients: [{ id: 0, cycles: [{ thinkMs: 100, holdMs: 0, writes: 0 }] }],
    });
    const sim = prepareSimulation(s, alg, leaseEnd === "latest" ? {} : { etcdLeaseEnd: leaseEnd });
    // Granted at about 0.1 s: its TTL runs out at about 1.1 s; the leader expires it then
    // (earliest) or at about 1.6 s (latest).
    const present = sampleAt(sim.world, [1450, 2000], (w) =>
      w.etcd!.cluster.members.every((m) => m.sm.kv.has("/k")),
    );
    await sim.run();
    expect(present).toEqual(expected);
  });

  it("a new leader gives leases a full TTL: a leader change alone does not expire them", async () => {
    const alg = probe("etcd", async (env) => {
      const etcd = etcdOf(env);
      const lease = await etcd.leaseGrant(3000);
      if (!lease.ok) throw new Error("grant failed");
      await etcd.createIfAbsent("/k", "v", lease.value.leaseId);
      await waitFor(env, 15_000);
    });
    // The old leader (paused from 0.5 s) would have expired the lease at about 3.1 s; the new
    // one, elected at 1.5–2.5 s, gives it 3 s from its promotion.
    const s = scheduleOf({
      servers: 3,
      faults: [{ kind: "pause", node: "server:leader", at: 500, durationMs: 20_000 }],
    });
    const sim = prepareSimulation(s, alg);
    const present = sampleAt(sim.world, [3500, 12_000], (w) => {
      const leader = w.etcd!.cluster.members.find((m) => m.node === w.etcd!.cluster.leader());
      return leader?.sm.kv.has("/k");
    });
    await sim.run();
    expect(present).toEqual([true, false]);
  });

  it("a restarted member keeps its log and catches up", async () => {
    // The client asks a member at random each call, once: calls to server:1 while it is down fail.
    let created = 0;
    const alg = probe("etcd", async (env) => {
      const etcd = etcdOf(env);
      for (let i = 0; i < 20; i++) {
        const lease = await etcd.leaseGrant(60_000);
        if (lease.ok && (await etcd.createIfAbsent(`/k${i}`, "v", lease.value.leaseId)).ok) created++;
        await env.sleep(100);
      }
      // Followers learn the last commit index from the next idle heartbeat.
      await env.sleep(300);
    });
    const s = scheduleOf({
      servers: 3,
      faults: [{ kind: "crash", node: "server:1", at: 500, restartAfterMs: 1000 }],
    });
    const sim = prepareSimulation(s, alg);
    const logAtCrash = sampleAt(sim.world, [501], (w) => w.etcd!.cluster.members[1]!.log.length);
    await sim.run();
    const members = sim.world.etcd!.cluster.members;
    expect(logAtCrash[0]).toBeGreaterThan(1);
    expect(created).toBeGreaterThan(10);
    expect(members[1]!.sm.kv.size).toBe(created);
    expect(new Set(members.map((m) => m.sm.revision)).size).toBe(1);
  });

  it("hands out strictly increasing tokens (create revisions) under pauses, partitions and crashes", async () => {
    for (let seed = 1; seed <= 8; seed++) {
      const s = scheduleOf({
        seed,
        servers: 3,
        resource: "fenced",
        options: { latencyMs: { min: 1, max: 5 }, callTimeoutMs: 200, horizonMs: 8000, lossRate: 0.02 },
        clients: [0, 1, 2].map((id) => ({
          id,
          cycles: Array.from({ length: 8 }, () => ({ thinkMs: 50 + 40 * id, holdMs: 200, writes: 2 })),
        })),
        faults: [
          { kind: "pause", node: "server:leader", at: 1000 + 100 * seed, durationMs: 2500 },
          {
            kind: "partition",
            at: 4000,
            durationMs: 1500,
            a: ["server:leader"],
            b: ["server:0", "server:1", "server:2"],
            oneWay: false,
          },
          { kind: "crash", node: "server:2", at: 6000, restartAfterMs: 700 },
          { kind: "pause", node: "client:1", at: 2000 + 50 * seed, durationMs: 1500 },
        ],
      });
      const { ops } = await simulate(s, consensus);
      const tokens = ops
        .filter((op) => op.f === "acquire" && op.type === "ok")
        .map((op) => (op as { token: bigint }).token);
      expect(tokens.length).toBeGreaterThan(3);
      const [tokenOrder] = checkOps(ops, ["token-order"]);
      expect(tokenOrder!.valid).toBe(true);
      expect(new Set(tokens).size).toBe(tokens.length);
    }
  });
});
