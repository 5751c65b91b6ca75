/**
 * Watches and background renewals on the etcd-like and zk-like clusters, and the lock
 * recipes that use them: a waiter wakes when the key (node) ahead of it goes, not on a poll,
 * a watch never outlives its wait, and keep-alives run without the lock algorithm.
 */
import { describe, expect, it } from "vitest";
import type { CallResult, EtcdApi, LockEnv, ZkApi } from "../../src/env/env.js";
import type { ClientOp } from "../../src/history/op.js";
import { consensus } from "../../src/locks/consensus.js";
import type { LockAlgorithm } from "../../src/locks/lock.js";
import { zk } from "../../src/locks/zk.js";
import { at } from "../../src/sim/scheduler.js";
import { prepareSimulation, simulate } from "../../src/sim/simulate.js";
import { clientOps, MS, probe, scheduleOf } from "./helpers.js";

function etcdOf(env: LockEnv): EtcdApi {
  if (env.etcd === null) throw new Error("no etcd");
  return env.etcd;
}

function zkOf(env: LockEnv): ZkApi {
  if (env.zk === null) throw new Error("no zk");
  return env.zk;
}

const waitFor = (env: LockEnv, untilMs: number) => env.sleep(Math.max(0, untilMs - env.now()));
const twoClients = [0, 1].map((id) => ({ id, cycles: [{ thinkMs: 100, holdMs: 0, writes: 0 }] }));

/** `alg`, with every call to one of the cluster's methods counted per client. */
function counting<K extends "etcd" | "zk">(
  alg: LockAlgorithm,
  cluster: K,
  method: string,
  counts: Map<number, number>,
): LockAlgorithm {
  const wrap = (env: LockEnv): LockEnv => {
    const api = env[cluster] as unknown as Record<string, (...args: unknown[]) => unknown>;
    const original = api[method]!;
    const counted = {
      ...api,
      [method]: (...args: unknown[]) => {
        counts.set(env.clientId, (counts.get(env.clientId) ?? 0) + 1);
        return original(...args);
      },
    };
    return { ...env, [cluster]: counted };
  };
  return {
    ...alg,
    acquire: (env, req) => alg.acquire(wrap(env), req),
    release: (env, handle) => alg.release(wrap(env), handle),
  };
}

const okTime = (ops: readonly ClientOp[], f: string, n = 0): number => {
  const op = ops.filter((o) => o.f === f && o.type === "ok")[n];
  if (op === undefined) throw new Error(`no ok #${n} of ${f}`);
  return op.time / MS;
};

const invokeTime = (ops: readonly ClientOp[], f: string, n = 0): number => {
  const op = ops.filter((o) => o.f === f && o.type === "invoke")[n];
  if (op === undefined) throw new Error(`no invoke #${n} of ${f}`);
  return op.time / MS;
};

describe("etcd watches", () => {
  it("fire when the watched version is deleted, at once if it already was, and time out otherwise", async () => {
    let revision = 0n;
    let deletedAt = 0;
    const seen: { fired?: CallResult<boolean>; firedAt?: number; again?: CallResult<boolean> } = {};
    const waits: { result: CallResult<boolean>; tookMs: number }[] = [];
    const alg = probe("etcd", async (env) => {
      const etcd = etcdOf(env);
      if (env.clientId === 0) {
        const lease = await etcd.leaseGrant(60_000);
        if (!lease.ok) throw new Error("grant failed");
        const k = await etcd.createIfAbsent("/k", "v", lease.value.leaseId);
        await etcd.createIfAbsent("/stays", "v", lease.value.leaseId);
        if (!k.ok) throw new Error("create failed");
        revision = k.value.createRevision;
        await waitFor(env, 1000);
        deletedAt = env.now();
        await etcd.deleteIfCreateRevision("/k", revision);
        await waitFor(env, 3000);
        return;
      }
      await waitFor(env, 500);
      seen.fired = await etcd.waitForDeletion("/k", revision, 5000);
      seen.firedAt = env.now();
      const t0 = env.now();
      seen.again = await etcd.waitForDeletion("/k", revision, 5000);
      waits.push({ result: seen.again, tookMs: env.now() - t0 });
      const t1 = env.now();
      waits.push({
        result: await etcd.waitForDeletion("/stays", revision + 1n, 300),
        tookMs: env.now() - t1,
      });
    });
    await simulate(scheduleOf({ servers: 3, clients: twoClients }), alg);
    expect(seen.fired).toEqual({ ok: true, value: true });
    // Sent at 1000: 10 ms to a member and 10 more if it forwards to the leader, 20 ms to commit,
    // 10 ms for the commit to reach a follower holding the watch, 10 ms for the notification.
    expect(seen.firedAt! - deletedAt).toBeLessThanOrEqual(60);
    // Already deleted: one round trip. Never deleted: the whole wait, then "not seen".
    expect(waits).toEqual([
      { result: { ok: true, value: true }, tookMs: 20 },
      { result: { ok: true, value: false }, tookMs: 300 },
    ]);
  });

  it("a watch on a member that crashes ends when its wait is over", async () => {
    const result: { r?: CallResult<boolean>; tookMs?: number } = {};
    const alg = probe("etcd", async (env) => {
      const etcd = etcdOf(env);
      const lease = await etcd.leaseGrant(60_000);
      if (!lease.ok) throw new Error("grant failed");
      const k = await etcd.createIfAbsent("/k", "v", lease.value.leaseId);
      if (!k.ok) throw new Error("create failed");
      const t0 = env.now();
      result.r = await etcd.waitForDeletion("/k", k.value.createRevision, 1000);
      result.tookMs = env.now() - t0;
    });
    const s = scheduleOf({
      servers: 3,
      faults: [{ kind: "crash", node: "server:leader", at: 400, restartAfterMs: 100 }],
    });
    await simulate(s, alg);
    expect(result).toEqual({ r: { ok: true, value: false }, tookMs: 1000 });
  });

  it("a waiting consensus client takes the lock when the holder releases, without polling", async () => {
    const creates = new Map<number, number>();
    const alg = counting(consensus, "etcd", "createIfAbsent", creates);
    const s = scheduleOf({
      servers: 3,
      resource: "fenced",
      clients: [
        { id: 0, cycles: [{ thinkMs: 0, holdMs: 700, writes: 0 }] },
        { id: 1, cycles: [{ thinkMs: 100, holdMs: 0, writes: 0 }] },
      ],
    });
    const { ops } = await simulate(s, alg);
    const released = invokeTime(clientOps(ops, 0), "release");
    const granted = okTime(clientOps(ops, 1), "acquire");
    // Delete committed and watch notified (at most 60 ms, see above), then one createIfAbsent
    // (at most 60 ms: to a member, forwarded, committed, back); a poll every 100–200 ms would
    // also have sent several createIfAbsent meanwhile.
    expect(granted - released).toBeLessThanOrEqual(120);
    expect(creates.get(1)).toBe(2);
  });
});

describe("zk watches", () => {
  it("wake only the waiter behind the deleted node: no herd", async () => {
    const listings = new Map<number, number>();
    const alg = counting(zk, "zk", "children", listings);
    const s = scheduleOf({
      servers: 3,
      resource: "fenced",
      clients: [
        { id: 0, cycles: [{ thinkMs: 0, holdMs: 500, writes: 0 }] },
        { id: 1, cycles: [{ thinkMs: 100, holdMs: 300, writes: 0 }] },
        { id: 2, cycles: [{ thinkMs: 150, holdMs: 0, writes: 0 }] },
      ],
    });
    const { ops } = await simulate(s, alg);
    const grants = [0, 1, 2].map((c) => okTime(clientOps(ops, c), "acquire"));
    expect(grants[0]!).toBeLessThan(grants[1]!);
    expect(grants[1]!).toBeLessThan(grants[2]!);
    // Each waiter lists the children twice: when it queues, and when the node ahead goes.
    expect([...listings].sort()).toEqual([
      [0, 1],
      [1, 2],
      [2, 2],
    ]);
    expect(grants[1]! - invokeTime(clientOps(ops, 0), "release")).toBeLessThanOrEqual(80);
  });

  it("answers a listing from the leader's state, without a log entry", async () => {
    const lengths: number[] = [];
    let listed: CallResult<unknown> | undefined;
    const sim = prepareSimulation(
      scheduleOf({ servers: 3 }),
      probe("zk", async (env) => {
        const ensemble = zkOf(env);
        const session = await ensemble.createSession(5000);
        if (!session.ok) throw new Error("no session");
        await ensemble.createEphemeralSequential(session.value.sessionId, "/lock");
        await waitFor(env, 1000);
        listed = await ensemble.children("/lock");
        await waitFor(env, 1500);
      }),
    );
    for (const t of [900, 1400])
      at(sim.world.core, t, () => lengths.push(sim.world.zk!.cluster.members[0]!.log.length));
    await sim.run();
    expect(listed).toMatchObject({ ok: true, value: [{ path: "/lock-0000000000", seq: 0 }] });
    expect(lengths[1]).toBe(lengths[0]);
  });
});

/** The times (ms) at which the zk ensemble was sent a session ping. */
function recordPings(sim: ReturnType<typeof prepareSimulation>) {
  const pings: number[] = [];
  const cluster = sim.world.zk!.cluster;
  const submit = cluster.submit;
  cluster.submit = (member, cmd, answer, arg) => {
    if (cmd.op === "heartbeat") pings.push(sim.world.core.now);
    submit(member, cmd, answer, arg);
  };
  return { cluster, pings };
}
describe("background renewals", () => {
  it("an etcd keep-alive keeps a lease until stopped; then it expires", async () => {
    const present: boolean[] = [];
    const alg = probe("etcd", async (env) => {
      const etcd = etcdOf(env);
      const lease = await etcd.leaseGrant(1000);
      if (!lease.ok) throw new Error("grant failed");
      await etcd.createIfAbsent("/k", "v", lease.value.leaseId);
      const renewal = etcd.keepAlive(lease.value.leaseId, 300);
      for (const t of [2000, 3000]) {
        await waitFor(env, t);
        const r = await etcd.get("/k");
        present.push(r.ok && r.value !== null);
      }
      renewal.stop();
      await waitFor(env, 4500);
      const r = await etcd.get("/k");
      present.push(r.ok && r.value !== null);
    });
    await simulate(scheduleOf({ servers: 3 }), alg);
    expect(present).toEqual([true, true, false]);
  });

  it("zk pings keep a session until stopped; then it expires", async () => {
    const alive: boolean[] = [];
    const alg = probe("zk", async (env) => {
      const ensemble = zkOf(env);
      const session = await ensemble.createSession(1000);
      if (!session.ok) throw new Error("no session");
      const renewal = ensemble.keepSessionAlive(session.value.sessionId, 300);
      await waitFor(env, 3000);
      const ping = await ensemble.heartbeat(session.value.sessionId);
      alive.push(ping.ok && ping.value);
      renewal.stop();
      await waitFor(env, 4500);
      const late = await ensemble.heartbeat(session.value.sessionId);
      alive.push(late.ok && late.value);
    });
    await simulate(scheduleOf({ servers: 3 }), alg);
    expect(alive).toEqual([true, false]);
  });

  it("freeze while the client is paused, and stop once a ping finds the session expired", async () => {
    const sim = prepareSimulation(
      scheduleOf({ servers: 3, faults: [{ kind: "pause", node: "client:0", at: 1000, durationMs: 2500 }] }),
      probe("zk", async (env) => {
        const ensemble = zkOf(env);
        const session = await ensemble.createSession(1000);
        if (!session.ok) throw new Error("no session");
        ensemble.keepSessionAlive(session.value.sessionId, 300);
        await waitFor(env, 6000);
      }),
    );
    const { cluster, pings } = recordPings(sim);
    await sim.run();
    // Every 300 ms from the session's creation (~150 ms) until the pause at 1 s; the one due
    // during the pause goes out on resume (3.5 s), finds the session expired, and is the last.
    expect(pings.filter((t) => t < 1000)).toEqual([450, 750]);
    expect(pings.filter((t) => t >= 1000 && t < 3500)).toEqual([]);
    expect(pings.filter((t) => t >= 3500)).toHaveLength(1);
    expect(cluster.members[0]!.sm.sessions.size).toBe(0);
  });

  it("stay stopped when stopped on resume, before a ping that came due in the pause", async () => {
    const sim = prepareSimulation(
      scheduleOf({ servers: 3, faults: [{ kind: "pause", node: "client:0", at: 990, durationMs: 1010 }] }),
      probe("zk", async (env) => {
        const ensemble = zkOf(env);
        const session = await ensemble.createSession(10_000);
        if (!session.ok) throw new Error("no session");
        const renewal = ensemble.keepSessionAlive(session.value.sessionId, 300);
        // Due at 1000, during the pause, as is the ping due at 1050: this wake-up runs first.
        await waitFor(env, 1000);
        renewal.stop();
        await waitFor(env, 3000);
      }),
    );
    const { pings } = recordPings(sim);
    await sim.run();
    expect(pings).toEqual([450, 750]);
  });
});
