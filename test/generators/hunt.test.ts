/**
 * `huntScheduleArb`: schedules for runs that hunt over a whole duration — every client
 * repeats its cycles until the horizon, faults come at about one per `faultEveryMs` spread
 * over the whole run, pauses include pauses inside calls — and the simulator honours `repeat`.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { huntScheduleArb } from "../../src/generators/hunt.js";
import { effectiveLeaseMs, realHuntArb } from "../../src/runner/fuzz-real.js";
import { type Fault, type Schedule, scheduleSchema } from "../../src/schedule/schedule.js";
import { simulate } from "../../src/sim/simulate.js";
import { realTargetFor } from "../../src/targets/real.js";
import type { Target } from "../../src/targets/target.js";
import { invocation, scheduleOf, setOnce } from "../sim/helpers.js";

const options = {
  lockName: "lock",
  ttlMs: 500,
  callTimeoutMs: 200,
  horizonMs: 20_000,
  latencyMs: { min: 0, max: 0 },
  lossRate: 0,
  servers: 1,
};

describe("huntScheduleArb", () => {
  const arb = huntScheduleArb({
    target: "redis:lease",
    resource: "unfenced",
    options,
    faults: { categories: ["pause"] },
  });
  const samples = fc.sample(arb, { seed: 5, numRuns: 40 });

  it("valid schedules whose clients all repeat, with one fault per TTL of the duration", () => {
    for (const s of samples) {
      expect(scheduleSchema.safeParse(s).success).toBe(true);
      expect(s.clients.every((c) => c.repeat === true)).toBe(true);
      expect(s.faults.length).toBe(40);
    }
  });

  it("spreads timed faults over the whole duration and generates pauses inside calls", () => {
    const times = samples.flatMap((s) => s.faults.flatMap((f) => ("at" in f ? [f.at] : [])));
    expect(Math.max(...times)).toBeGreaterThan(0.9 * options.horizonMs);
    expect(times.filter((t) => t > options.horizonMs / 2).length).toBeGreaterThan(times.length / 4);
    const kinds = new Set(samples.flatMap((s) => s.faults.map((f) => f.kind)));
    expect([...kinds].sort()).toEqual(["pause", "pause-at", "pause-in-call"]);
  });

  it("every hold writes, and client pauses last from one lease up to 3 × TTL", () => {
    expect(samples.flatMap((s) => s.clients.flatMap((c) => c.cycles)).every((c) => c.writes >= 1)).toBe(true);
    const clientPauses = samples.flatMap((s) =>
      s.faults.filter((f) => f.kind !== "pause" || f.node.startsWith("client:")),
    );
    expect(clientPauses.length).toBeGreaterThan(0);
    for (const f of clientPauses) {
      expect(f).toHaveProperty("durationMs");
      const d = (f as { durationMs: number }).durationMs;
      expect(d).toBeGreaterThanOrEqual(options.ttlMs);
      expect(d).toBeLessThanOrEqual(3 * options.ttlMs);
    }
  });

  it("a longer leaseMs (etcd) makes client pauses at least that long, and up to twice it", () => {
    const pauses = fc
      .sample(
        huntScheduleArb({
          target: "etcd:lock",
          resource: "unfenced",
          options: { ...options, ttlMs: 1000, servers: 3 },
          leaseMs: 1800,
          faults: { categories: ["pause"], leader: true },
        }),
        { seed: 3, numRuns: 10 },
      )
      .flatMap((s) => s.faults)
      .filter((f) => f.kind !== "pause" || f.node.startsWith("client:"))
      .map((f) => (f as { durationMs: number }).durationMs);
    expect(Math.min(...pauses)).toBeGreaterThanOrEqual(1800);
    expect(Math.max(...pauses)).toBeLessThanOrEqual(3600);
    expect(Math.max(...pauses)).toBeGreaterThan(3000);
  });

  it("real hunts pause clients for at least the target's effective lease (etcd: whole seconds + 500 ms)", () => {
    for (const [name, lease] of [
      ["redis:lease", 500],
      ["etcd:lock", 1500],
    ] as const) {
      const target = realTargetFor(name)!;
      expect(effectiveLeaseMs(target, target.defaults.ttlMs)).toBe(lease);
      const pauses = fc
        .sample(realHuntArb(target, ["pause"], 10_000, 4, "unfenced"), { seed: 9, numRuns: 5 })
        .flatMap((s) => s.faults)
        .filter((f) => f.kind !== "pause" || f.node.startsWith("client:"))
        .map((f) => (f as { durationMs: number }).durationMs);
      expect(Math.min(...pauses)).toBeGreaterThanOrEqual(lease);
    }
    expect(effectiveLeaseMs(realTargetFor("etcd:lock")!, 1200)).toBe(2500);
  });

  it("draws durations uniformly: few pauses near the bounds, unlike fast-check's biased draws", () => {
    const durations = samples
      .flatMap((s) => s.faults.filter((f) => f.kind !== "pause" || f.node.startsWith("client:")))
      .map((f) => (f as { durationMs: number }).durationMs);
    const nearBounds = durations.filter((d) => d - options.ttlMs < 10 || 3 * options.ttlMs - d < 10);
    // Uniform over 1000 values: about 2% of draws fall within 10 ms of either bound.
    expect(nearBounds.length).toBeLessThan(durations.length / 10);
  });

  it("delays slow a client's link to a lock server or the resource, requests and replies alike; half hold back writes to the resource, from a write on", () => {
    const all = fc
      .sample(
        huntScheduleArb({
          target: "redis:redlock",
          resource: "unfenced",
          options: { ...options, servers: 5 },
          faults: { categories: ["delay"] },
        }),
        { seed: 2, numRuns: 100 },
      )
      .flatMap((s) => s.faults);
    // Half start at a client's write (before-write), so each catches one.
    const aimed = all.flatMap((f) => (f.kind === "delay-at" ? [f] : []));
    // One of a client's first writes, up to one per cycle it gets through (20 s of 500-ms TTLs:
    // 40 cycles among the clients, 20 as the bound): a later one may never come.
    for (const f of aimed) {
      expect(f).toMatchObject({ checkpoint: "before-write", node: "resource", direction: "out" });
      expect(f.occurrence).toBeLessThan(20);
    }
    expect(new Set(aimed.map((f) => f.occurrence)).size).toBeGreaterThan(10);
    expect(aimed.length / all.length).toBeGreaterThan(0.4);
    expect(aimed.length / all.length).toBeLessThan(0.6);
    const delays = all.filter((f) => f.kind === "delay");
    const isClient = (n: string) => n.startsWith("client:");
    const isPeer = (n: string) => n.startsWith("server:") || n === "resource";
    // Two clients never talk, and lock servers' links to each other and to the resource are
    // not proxied on real servers: a delay there would do nothing.
    const noOps = delays.filter(
      (f) => !((isClient(f.from) && isPeer(f.to)) || (isPeer(f.from) && isClient(f.to))),
    );
    expect(noOps).toEqual([]);
    const replies = delays.filter((f) => f.from.startsWith("server:") && isClient(f.to)).length;
    const requests = delays.filter((f) => isClient(f.from) && f.to.startsWith("server:")).length;
    // The delayed packet: a write that reaches the resource after its client gave up on it.
    const heldWrites = delays.filter((f) => isClient(f.from) && f.to === "resource").length + aimed.length;
    expect(all.length).toBeGreaterThan(500);
    expect(replies).toBeGreaterThan(all.length / 6);
    expect(requests).toBeGreaterThan(all.length / 6);
    // Half aimed, and 1 in 12 of the rest: about 54%; drawn over the links alike it was 1 in 12.
    expect(heldWrites / all.length).toBeGreaterThan(0.45);
    expect(heldWrites / all.length).toBeLessThan(0.65);
  });

  it("a delay lasts up to the call timeout + 2 TTLs: a write held back can time out and land after the next holder's", () => {
    const delaysOf = (callTimeoutMs: number) =>
      fc
        .sample(
          huntScheduleArb({
            target: "module:./lib.mjs",
            resource: "unfenced",
            options: { ...options, ttlMs: 1000, callTimeoutMs },
            faults: { categories: ["delay"] },
          }),
          { seed: 3, numRuns: 60 },
        )
        .flatMap((s) => s.faults)
        .flatMap((f) => (f.kind === "delay" || f.kind === "delay-at" ? [f.extraMs] : []));
    // etcd3-lock.mjs waits 2 s for a call: delays of at most 2 TTLs never made a write time out.
    const slowCalls = delaysOf(2000);
    expect(Math.max(...slowCalls)).toBeLessThanOrEqual(4000);
    // Past the timeout, a next holder's acquisition and a hold of 0.8 TTL.
    expect(slowCalls.filter((ms) => ms > 2900).length).toBeGreaterThan(slowCalls.length / 6);
    const quickCalls = delaysOf(200);
    expect(Math.max(...quickCalls)).toBeLessThanOrEqual(2200);
    expect(Math.max(...quickCalls)).toBeGreaterThan(2000);
  });

  it("partitions cut a client's links, and cut servers apart only where they talk to each other", () => {
    const partitionsOf = (target: string, servers: number, leader: boolean) =>
      fc
        .sample(
          huntScheduleArb({
            target,
            resource: "unfenced",
            options: { ...options, servers },
            faults: { categories: ["partition"], leader },
          }),
          { seed: 3, numRuns: 100 },
        )
        .flatMap((s) => s.faults)
        .filter((f) => f.kind === "partition");
    const isClient = (n: string) => n.startsWith("client:");
    const cutsClientLink = (p: { a: string[]; b: string[] }) =>
      p.a.some((x) => p.b.some((y) => isClient(x) !== isClient(y)));
    const redis = partitionsOf("redis:redlock", 5, false);
    expect(redis.length).toBeGreaterThan(500);
    // Redis servers never talk to each other: a partition that cuts no client's link does nothing.
    expect(redis.filter((p) => !cutsClientLink(p))).toEqual([]);
    const etcd = partitionsOf("etcd:lock", 3, true);
    const splits = etcd.filter((p) => [...p.a, ...p.b].every((n) => n.startsWith("server:")));
    expect(splits.length).toBeGreaterThan(etcd.length / 10);
    expect(etcd.filter((p) => !cutsClientLink(p) && !splits.includes(p))).toEqual([]);
  });

  it("clock faults lean toward harm: servers forward and fast, clients back and slow, three in four; no drift under 50%", () => {
    const clocks = fc
      .sample(
        huntScheduleArb({
          target: "redis:redlock",
          resource: "unfenced",
          options: { ...options, servers: 5 },
          faults: { categories: ["clock"] },
        }),
        { seed: 3, numRuns: 40 },
      )
      .flatMap((s) => s.faults)
      .flatMap((f): { kind: string; node: string; value: number }[] =>
        f.kind === "clock-jump"
          ? [{ kind: f.kind, node: f.node, value: f.deltaMs }]
          : f.kind === "clock-drift"
            ? [{ kind: f.kind, node: f.node, value: f.rate }]
            : [],
      );
    const drifts = clocks.filter((c) => c.kind === "clock-drift");
    expect(drifts.length).toBeGreaterThan(200);
    for (const d of drifts) {
      expect(Math.abs(d.value)).toBeGreaterThanOrEqual(0.5);
      expect(Math.abs(d.value)).toBeLessThanOrEqual(0.9);
    }
    for (const kind of ["clock-jump", "clock-drift"]) {
      for (const [who, harmful] of [
        ["server:", (v: number) => v > 0],
        ["client:", (v: number) => v < 0],
      ] as const) {
        const values = clocks.filter((c) => c.kind === kind && c.node.startsWith(who) && c.value !== 0);
        expect(values.length, `${kind} ${who}`).toBeGreaterThan(40);
        const share = values.filter((c) => harmful(c.value)).length / values.length;
        expect(share, `${kind} ${who}`).toBeGreaterThan(0.6);
        expect(share, `${kind} ${who}`).toBeLessThan(0.9);
      }
    }
  });

  it("real hunts change a server's clock as often as a client's; of etcd, whose members ignore clock faults, only clients'", () => {
    const clockFaultsOf = (name: string) =>
      fc
        .sample(realHuntArb(realTargetFor(name)!, ["clock"], 20_000, 4), { seed: 2, numRuns: 20 })
        .flatMap((s) => s.faults)
        .map((f) => ("node" in f ? f.node : "?"));
    const etcd = clockFaultsOf("etcd:lock");
    expect(etcd.length).toBeGreaterThan(100);
    expect(etcd.filter((node) => !node.startsWith("client:"))).toEqual([]);
    // Elsewhere a server's clock as often as a client's, however many servers there are.
    for (const name of ["redis:redlock", "redis:lease"]) {
      const nodes = clockFaultsOf(name);
      const servers = nodes.filter((node) => node.startsWith("server:")).length / nodes.length;
      expect(servers, name).toBeGreaterThan(0.4);
      expect(servers, name).toBeLessThan(0.6);
    }
  });

  it("no categories: no faults", () => {
    const [s] = fc.sample(huntScheduleArb({ target: "redis:lease", resource: "unfenced", options }), {
      seed: 1,
      numRuns: 1,
    });
    expect(s?.faults).toEqual([]);
  });
});

describe("hunts of a lock that renews its lease", () => {
  const holdsOf = (schedules: readonly Schedule[]) =>
    schedules.flatMap((s) => s.clients.flatMap((c) => c.cycles.map((cy) => cy.holdMs)));
  /** Partitions that cut one client off from every lock server and not from the resource. */
  const isolations = (s: Schedule) =>
    s.faults.filter(
      (f): f is Extract<Fault, { kind: "partition" }> =>
        f.kind === "partition" &&
        f.a.length === 1 &&
        f.a[0]!.startsWith("client:") &&
        !f.b.includes("resource") &&
        Array.from({ length: s.options.servers }, (_, i) => `server:${i}`).every((n) => f.b.includes(n)),
    );

  it("etcd:lock renews (its keep-alive); redis:lease does not", () => {
    expect(realTargetFor("etcd:lock")!.renews).toBe(true);
    expect(realTargetFor("redis:lease")!.renews).toBeUndefined();
  });

  for (const name of ["redis:lease", "etcd:lock"]) {
    const base = realTargetFor(name)!;
    const lease = effectiveLeaseMs(base, base.defaults.ttlMs);
    const sample = (target: Target) =>
      fc.sample(realHuntArb(target, ["partition"], 20_000, 4, "unfenced"), { seed: 4, numRuns: 10 });

    it(`${name}: holds past the lease (up to 3 × it) writing throughout, isolations from every lock server longer than it`, () => {
      const schedules = sample({ ...base, renews: true });
      for (const s of schedules) expect(scheduleSchema.safeParse(s).success).toBe(true);
      const holds = holdsOf(schedules);
      expect(holds.filter((h) => h > lease).length).toBeGreaterThan(holds.length / 4);
      expect(Math.max(...holds)).toBeLessThanOrEqual(3 * lease);
      // A write at least every quarter lease, so a long hold writes to its end.
      for (const cy of schedules.flatMap((s) => s.clients.flatMap((c) => c.cycles)))
        expect(cy.writes).toBeGreaterThanOrEqual(Math.ceil(cy.holdMs / Math.floor(lease / 4)));
      const cut = schedules.flatMap(isolations);
      expect(cut.length).toBeGreaterThan(schedules.length);
      const longCuts = cut.filter((f) => f.durationMs >= lease && !f.oneWay);
      expect(longCuts.length).toBeGreaterThan(cut.length / 2);
    });

    it(`${name}: without renews, every hold ends before the lease could expire`, () => {
      const holds = holdsOf(sample({ ...base, renews: false }));
      expect(holds.length).toBeGreaterThan(0);
      expect(Math.max(...holds)).toBeLessThan(base.defaults.ttlMs);
    });
  }
});

describe("repeat (simulator)", () => {
  it("a repeating client starts its cycles over until the horizon; without repeat it stops after them", async () => {
    const cycles = [{ thinkMs: 100, holdMs: 0, writes: 0 }];
    const base = scheduleOf({ options: { horizonMs: 1000 } });
    const once = await simulate({ ...base, clients: [{ id: 0, cycles }] }, setOnce);
    const again = await simulate({ ...base, clients: [{ id: 0, cycles, repeat: true }] }, setOnce);
    const acquires = (ops: typeof once.ops) =>
      ops.filter((o) => o.process === 0 && o.f === "acquire" && o.type === "invoke");
    expect(acquires(once.ops)).toHaveLength(1);
    // A cycle takes 100 ms think + a 20 ms call: about 8 in a 1 s horizon, none after it.
    expect(acquires(again.ops).length).toBeGreaterThan(5);
    expect(acquires(again.ops).every((o) => o.time <= 1000 * 1e6)).toBe(true);
    expect(invocation(again.ops, 0, "acquire", 1).time).toBeGreaterThan(
      invocation(again.ops, 0, "acquire", 0).time,
    );
  });

  it("a repeating plan that takes no time runs once instead of forever", async () => {
    const base = scheduleOf({ options: { horizonMs: 1000, latencyMs: { min: 0, max: 0 } } });
    const r = await simulate(
      { ...base, clients: [{ id: 0, cycles: [{ thinkMs: 0, holdMs: 0, writes: 0 }], repeat: true }] },
      setOnce,
    );
    expect(r.ops.filter((o) => o.process === 0 && o.f === "acquire" && o.type === "invoke")).toHaveLength(1);
  });
});
