import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fitFaultsToClients } from "../../src/generators/fit.js";
import { FAULT_CATEGORIES, type FaultCategory, scheduleArb } from "../../src/generators/index.js";
import type { Fault, NodeRef, Schedule, ScheduleOptions } from "../../src/schedule/schedule.js";
import { scheduleSchema } from "../../src/schedule/schedule.js";

const options: ScheduleOptions = {
  lockName: "lock",
  ttlMs: 1000,
  callTimeoutMs: 100,
  horizonMs: 5000,
  latencyMs: { min: 1, max: 5 },
  lossRate: 0,
  servers: 5,
};

const KINDS_OF: Record<FaultCategory, Fault["kind"][]> = {
  pause: ["pause", "pause-at", "pause-in-call"],
  clock: ["clock-jump", "clock-drift"],
  partition: ["partition"],
  crash: ["crash"],
  delay: ["delay"],
  suspend: ["pause-at", "pause-in-call"],
};

function nodesOf(f: Fault): NodeRef[] {
  switch (f.kind) {
    case "pause":
    case "crash":
    case "clock-jump":
    case "clock-drift":
      return [f.node];
    case "pause-at":
    case "pause-in-call":
      return [`client:${f.client}`];
    case "delay":
      return [f.from, f.to];
    case "partition":
      return [...f.a, ...f.b];
    case "partition-at":
      return [`client:${f.client}`, ...f.nodes];
    case "delay-at":
      return [`client:${f.client}`, f.node];
  }
}

function nodeExists(ref: NodeRef, s: Schedule, leader: boolean): boolean {
  if (ref === "resource") return true;
  if (ref === "server:leader") return leader;
  const [kind, n] = ref.split(":");
  if (kind === "client") return s.clients.some((c) => c.id === Number(n));
  return Number(n) < s.options.servers;
}

describe("scheduleArb", () => {
  it("generates valid schedules within every bound", () => {
    const categoriesArb = fc.subarray([...FAULT_CATEGORIES]);
    fc.assert(
      fc.property(
        categoriesArb.chain((categories) =>
          fc.tuple(
            fc.constant(categories),
            scheduleArb({
              target: "sim:redlock",
              resource: "unfenced",
              options,
              workload: { maxClients: 3, maxCycles: 2, maxHoldMs: 300, maxWrites: 2 },
              faults: { categories, maxFaults: 3, maxPauseMs: 2000 },
            }),
          ),
        ),
        ([categories, s]) => {
          expect(scheduleSchema.safeParse(s).success).toBe(true);
          expect(s.clients.length).toBeGreaterThanOrEqual(1);
          expect(s.clients.length).toBeLessThanOrEqual(3);
          expect(s.clients.map((c) => c.id)).toEqual(s.clients.map((_, i) => i));
          for (const c of s.clients) {
            expect(c.cycles.length).toBeGreaterThanOrEqual(1);
            expect(c.cycles.length).toBeLessThanOrEqual(2);
            for (const cy of c.cycles) {
              expect(cy.holdMs).toBeLessThanOrEqual(300);
              expect(cy.writes).toBeLessThanOrEqual(2);
            }
          }
          expect(s.faults.length).toBeLessThanOrEqual(3);
          const allowed = categories.flatMap((c) => KINDS_OF[c]);
          for (const f of s.faults) {
            expect(allowed).toContain(f.kind);
            for (const n of nodesOf(f)) expect(nodeExists(n, s, false), `${f.kind} names ${n}`).toBe(true);
            if (f.kind === "pause" || f.kind === "pause-at") expect(f.durationMs).toBeLessThanOrEqual(2000);
            if (f.kind === "partition") expect(f.a.some((n) => f.b.includes(n))).toBe(false);
            // Clocks stop only in a suspend, which is asked for by name.
            if ((f.kind === "pause-at" || f.kind === "pause-in-call") && f.clocks !== undefined)
              expect(categories).toContain("suspend");
          }
        },
      ),
      { numRuns: 300, seed: 11 },
    );
  });

  it("suspends are client pauses whose clocks stop, at a checkpoint or in a call", () => {
    const samples = fc.sample(
      scheduleArb({
        target: "sim:redlock",
        resource: "unfenced",
        options,
        faults: { categories: ["suspend"], maxFaults: 4 },
      }),
      { numRuns: 100, seed: 5 },
    );
    const faults = samples.flatMap((s) => s.faults);
    expect(new Set(faults.map((f) => f.kind))).toEqual(new Set(["pause-at", "pause-in-call"]));
    expect(faults.every((f) => "clocks" in f && f.clocks === "stopped")).toBe(true);
  });

  it("aims faults at the leader only when asked to", () => {
    const leaderArb = scheduleArb({
      target: "sim:consensus",
      resource: "fenced",
      options: { ...options, servers: 3 },
      faults: { categories: ["pause", "crash"], maxFaults: 4, leader: true },
    });
    const samples = fc.sample(leaderArb, { numRuns: 300, seed: 3 });
    const refs = samples.flatMap((s) => s.faults.flatMap(nodesOf));
    expect(refs).toContain("server:leader");
    const noLeader = fc.sample(
      scheduleArb({
        target: "sim:lease",
        resource: "unfenced",
        options,
        faults: { categories: ["pause", "crash"] },
      }),
      { numRuns: 300, seed: 3 },
    );
    expect(noLeader.flatMap((s) => s.faults.flatMap(nodesOf))).not.toContain("server:leader");
  });

  it("restricts pauses to the allowed kinds and checkpoints", () => {
    const samples = fc.sample(
      scheduleArb({
        target: "sim:redlock",
        resource: "unfenced",
        options,
        faults: {
          categories: ["pause"],
          pauses: ["checkpoint"],
          checkpoints: ["acquire-sent"],
          maxFaults: 3,
        },
      }),
      { numRuns: 200, seed: 5 },
    );
    const faults = samples.flatMap((s) => s.faults);
    expect(faults.length).toBeGreaterThan(0);
    for (const f of faults) expect(f).toMatchObject({ kind: "pause-at", checkpoint: "acquire-sent" });
  });

  it("is deterministic for a seed", () => {
    const arb = scheduleArb({
      target: "sim:lease",
      resource: "unfenced",
      options,
      faults: { categories: ["pause", "clock"] },
    });
    expect(fc.sample(arb, { numRuns: 20, seed: 42 })).toEqual(fc.sample(arb, { numRuns: 20, seed: 42 }));
  });

  it("rejects impossible bounds, naming the call and the field", () => {
    expect(() =>
      scheduleArb({ target: "sim:lease", resource: "unfenced", options, workload: { maxClients: 0 } }),
    ).toThrow(/scheduleArb: maxClients/);
    expect(() =>
      scheduleArb({
        target: "sim:lease",
        resource: "unfenced",
        options,
        faults: { categories: ["pause", "gc" as FaultCategory] },
      }),
    ).toThrow(/scheduleArb: categories contains unknown category "gc"/);
  });
});

describe("shrinking heads toward small schedules", () => {
  const arb = scheduleArb({
    target: "sim:redlock",
    resource: "unfenced",
    options,
    workload: { minClients: 1 },
    faults: { categories: ["pause", "clock", "partition"], maxFaults: 6 },
  });

  function shrunk(predicate: (s: Schedule) => boolean, seed: number): Schedule {
    const details = fc.check(fc.property(arb, predicate), { seed, numRuns: 2000 });
    expect(details.failed).toBe(true);
    return details.counterexample![0];
  }

  it("a long client pause: one client, one empty cycle, one pause just over the threshold", () => {
    const longPause = (s: Schedule) =>
      s.faults.some((f) => (f.kind === "pause" || f.kind === "pause-at") && f.durationMs > 1500);
    for (const seed of [1, 2, 3]) {
      const s = shrunk((x) => !longPause(x), seed);
      expect(s.clients).toEqual([{ id: 0, cycles: [{ thinkMs: 0, holdMs: 0, writes: 0 }] }]);
      expect(s.faults).toHaveLength(1);
      expect(s.faults[0]).toMatchObject({ durationMs: 1501 });
    }
  });

  it("a large clock offset shrinks to the smallest offset that still fails", () => {
    const bigJump = (s: Schedule) =>
      s.faults.some((f) => f.kind === "clock-jump" && Math.abs(f.deltaMs) >= 300);
    const s = shrunk((x) => !bigJump(x), 4);
    expect(s.faults).toHaveLength(1);
    expect(Math.abs((s.faults[0] as { deltaMs: number }).deltaMs)).toBe(300);
    expect(s.faults[0]).toMatchObject({ at: 0 });
  });

  it("needing three clients keeps exactly three, each with one cycle, and no faults", () => {
    const s = shrunk((x) => x.clients.length < 3, 5);
    expect(s.clients).toHaveLength(3);
    expect(s.clients.every((c) => c.cycles.length === 1)).toBe(true);
    expect(s.faults).toEqual([]);
  });
});

describe("fitFaultsToClients", () => {
  it("folds client references onto existing clients and drops meaningless faults", () => {
    const faults: Fault[] = [
      { kind: "pause", node: "client:5", at: 1, durationMs: 2 },
      { kind: "pause-at", client: 3, checkpoint: "acquired", occurrence: 0, durationMs: 5 },
      { kind: "partition", at: 0, durationMs: 1, a: ["client:0"], b: ["client:2"], oneWay: false },
      {
        kind: "partition",
        at: 0,
        durationMs: 1,
        a: ["client:1", "server:0"],
        b: ["client:3", "server:1"],
        oneWay: false,
      },
      { kind: "delay", from: "client:0", to: "client:2", at: 0, durationMs: 1, extraMs: 1 },
    ];
    expect(fitFaultsToClients(faults, 2)).toEqual([
      { kind: "pause", node: "client:1", at: 1, durationMs: 2 },
      { kind: "pause-at", client: 1, checkpoint: "acquired", occurrence: 0, durationMs: 5 },
      {
        kind: "partition",
        at: 0,
        durationMs: 1,
        a: ["client:1", "server:0"],
        b: ["server:1"],
        oneWay: false,
      },
    ]);
  });
});

describe("scheduleArb of a lock that renews its lease", () => {
  const sample = (renews: boolean) =>
    fc.sample(
      scheduleArb({
        target: "sim:test",
        resource: "unfenced",
        options,
        renews,
        faults: { categories: ["partition"], leader: true },
      }),
      { seed: 5, numRuns: 40 },
    );
  const holds = (ss: Schedule[]) =>
    ss.flatMap((s) => s.clients.flatMap((c) => c.cycles.map((cy) => cy.holdMs)));
  const isolations = (ss: Schedule[]) =>
    ss
      .flatMap((s) => s.faults)
      .filter(
        (f) =>
          f.kind === "partition" &&
          f.a.length === 1 &&
          f.a[0]!.startsWith("client:") &&
          f.b.length === options.servers &&
          f.b.every((n) => n.startsWith("server:")),
      );

  it("holds up to 3 x TTL, writing at least every quarter TTL, and cuts clients off from every server for 1-3 TTLs", () => {
    const ss = sample(true);
    for (const s of ss) expect(scheduleSchema.safeParse(s).success).toBe(true);
    const h = holds(ss);
    expect(h.filter((x) => x > options.ttlMs).length).toBeGreaterThan(h.length / 4);
    expect(Math.max(...h)).toBeLessThanOrEqual(3 * options.ttlMs);
    for (const cy of ss.flatMap((s) => s.clients.flatMap((c) => c.cycles)))
      expect(cy.writes).toBeGreaterThanOrEqual(Math.min(12, Math.ceil(cy.holdMs / (options.ttlMs / 4))));
    const cut = isolations(ss) as Extract<Fault, { kind: "partition" }>[];
    expect(cut.length).toBeGreaterThan(0);
    for (const f of cut) {
      expect(f.durationMs).toBeGreaterThanOrEqual(options.ttlMs);
      expect(f.durationMs).toBeLessThanOrEqual(3 * options.ttlMs);
    }
  });

  it("without renews: holds end within 0.8 x TTL and no client is cut off from every server", () => {
    const ss = sample(false);
    expect(Math.max(...holds(ss))).toBeLessThanOrEqual(0.8 * options.ttlMs);
    expect(isolations(ss)).toEqual([]);
  });
});
