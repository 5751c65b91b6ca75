/**
 * Shrinking with timing margins (robust-failure.ts, shrink-robust.ts) and dropping faults that
 * never fired (fired-faults.ts): a counterexample shrunk with margins still fails when its
 * timings are moved; one shrunk to the bare minimum often does not; unfired faults are seen.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Op } from "../../src/history/op.js";
import { fuzz } from "../../src/runner/fuzz.js";
import { probeViolation, violationKind } from "../../src/runner/same-violation.js";
import { firedFaults, withoutUnfiredFaults } from "../../src/runner/shrink/fired-faults.js";
import { clientLosesStartRace, perturbations, probeRobust } from "../../src/runner/shrink/robust-failure.js";
import type { Fault, Schedule } from "../../src/schedule/schedule.js";
import { scheduleFor, target } from "./schedules.js";

const lease = target("sim:lease");
const gcPause = {
  target: lease,
  resource: "unfenced" as const,
  faults: ["pause" as const],
  runs: 5000,
};

/**
 * A perturbation the shrinker never tried as such: another latency draw, every pause up to
 * `margin` shorter, and one client starting up to `margin` later, all at once.
 */
function perturbed(s: Schedule, seed: number, shorter: number, later: number, who: number): Schedule {
  const faults = s.faults.map(
    (f): Fault =>
      f.kind === "pause" || f.kind === "pause-at"
        ? { ...f, durationMs: Math.max(1, f.durationMs - shorter) }
        : f,
  );
  const clients = s.clients.map((c, i) =>
    i !== who % s.clients.length || c.cycles.length === 0
      ? c
      : { ...c, cycles: c.cycles.map((cy, k) => (k === 0 ? { ...cy, thinkMs: cy.thinkMs + later } : cy)) },
  );
  return { ...s, seed, faults, clients };
}

describe("shrinking with timing margins", () => {
  it("sim:lease, client pauses: the shrunk counterexample still fails when its timings move (property over fuzz seeds)", async () => {
    const margin = 50;
    let found = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 10_000 }),
        fc.array(
          fc.record({
            seed: fc.integer({ min: 0, max: 0xffffffff }),
            shorter: fc.integer({ min: 0, max: margin }),
            later: fc.integer({ min: 0, max: margin }),
            who: fc.nat(3),
          }),
          { minLength: 4, maxLength: 4 },
        ),
        async (fuzzSeed, moves) => {
          // Budgets by runs only (no time limits), so that a loaded machine shrinks the same way.
          const r = await fuzz({
            ...gcPause,
            seed: fuzzSeed,
            marginMs: margin,
            fcShrink: { maxRuns: 600, timeLimitMs: 600_000 },
            shrink: { maxRuns: 2000 },
          });
          const ce = r.counterexample;
          if (ce === null) return; // no violation for this seed: nothing to check
          found++;
          expect(ce.shrink).toBe("margins");
          const kind = violationKind(ce.verdicts)!;
          expect((await probeRobust(lease, ce.schedule, kind, margin)).fails).toBe(true);
          for (const m of moves) {
            const moved = perturbed(ce.schedule, m.seed, m.shorter, m.later, m.who);
            expect((await probeViolation(lease, moved, kind)).fails, JSON.stringify({ moved })).toBe(true);
          }
        },
      ),
      { numRuns: 8, seed: 21 },
    );
    expect(found).toBeGreaterThanOrEqual(6);
  });

  it("the bare minimum of the same search fails by a hair: some perturbation passes (that is what margins fix)", async () => {
    let hair = 0;
    for (const seed of [1, 2, 3]) {
      const ce = (await fuzz({ ...gcPause, seed, marginMs: false })).counterexample!;
      expect(ce.shrink).toBe("exact");
      const kind = violationKind(ce.verdicts)!;
      if (!(await probeRobust(lease, ce.schedule, kind, 50)).fails) hair++;
    }
    expect(hair).toBeGreaterThan(0);
  });

  it("a lock that renews its lease: a partition that fails by a hair gets margins by cutting the holder off from every member", async () => {
    // Seeds 5 and 8 of sim:consensus with partitions: the partition as found cut client 0 off
    // from two of the three members, and its heal came just before a keep-alive; no earlier
    // variant gives that room, so these shrank to the bare minimum before renewingRoom.
    const consensus = target("sim:consensus");
    for (const seed of [5, 8]) {
      const r = await fuzz({
        target: consensus,
        resource: "unfenced",
        faults: ["partition"],
        runs: 5000,
        seed,
        fcShrink: { maxRuns: 600, timeLimitMs: 600_000 },
        shrink: { maxRuns: 2000 },
      });
      const ce = r.counterexample!;
      expect(ce.shrink, `seed ${seed}`).toBe("margins");
      const kind = violationKind(ce.verdicts)!;
      expect((await probeRobust(consensus, ce.schedule, kind, 50)).fails).toBe(true);
      const servers = ["server:0", "server:1", "server:2"];
      const cuts = ce.schedule.faults.filter((f) => f.kind === "partition");
      expect(cuts.length).toBeGreaterThan(0);
      for (const f of cuts) {
        if (f.kind !== "partition") continue;
        const side = f.a.every((n) => n.startsWith("client:")) ? f.b : f.a;
        expect([...side].sort(), `seed ${seed}`).toEqual(servers);
      }
    }
  });

  it("perturbations move each timing by the margin, one at a time and all together", () => {
    const s = scheduleFor("sim:lease", {
      resource: "unfenced",
      clients: [[{ thinkMs: 0, holdMs: 10, writes: 1 }], [{ thinkMs: 100, holdMs: 10, writes: 1 }]],
      faults: [
        { kind: "pause", node: "client:0", at: 30, durationMs: 1200 },
        { kind: "pause-at", client: 1, checkpoint: "acquired", occurrence: 0, durationMs: 900 },
      ],
    });
    const ps = perturbations(s, 50);
    const differs = (p: Schedule) => JSON.stringify(p) !== JSON.stringify(s);
    expect(ps.every(differs)).toBe(true);
    // Two other latency draws alone; a third with every fault weaker, alone and with each client later.
    expect(ps.filter((p) => p.seed !== s.seed)).toHaveLength(2 + 1 + 2);
    expect(ps).toContainEqual(
      expect.objectContaining({
        seed: s.seed + 3,
        clients: [s.clients[0], { id: 1, cycles: [{ thinkMs: 150, holdMs: 10, writes: 1 }] }],
        faults: [
          { kind: "pause", node: "client:0", at: 30, durationMs: 1150 },
          { kind: "pause-at", client: 1, checkpoint: "acquired", occurrence: 0, durationMs: 850 },
        ],
      }),
    );
    expect(ps.map((p) => p.clients.map((c) => c.cycles[0]!.thinkMs))).toContainEqual([50, 100]);
    expect(ps.map((p) => p.clients.map((c) => c.cycles[0]!.thinkMs))).toContainEqual([0, 150]);
    expect(ps.map((p) => p.faults[0])).toContainEqual({
      kind: "pause",
      node: "client:0",
      at: 30,
      durationMs: 1150,
    });
    expect(ps.map((p) => p.faults[0])).toContainEqual({
      kind: "pause",
      node: "client:0",
      at: 80,
      durationMs: 1200,
    });
    expect(ps.map((p) => p.faults[0])).toContainEqual({
      kind: "pause",
      node: "client:0",
      at: 0,
      durationMs: 1200,
    });
    expect(ps.map((p) => p.faults[1])).toContainEqual(expect.objectContaining({ durationMs: 850 }));
  });
});

describe("clients that start together", () => {
  const together = scheduleFor("sim:lease", {
    resource: "unfenced",
    clients: [
      [{ thinkMs: 0, holdMs: 300, writes: 1 }],
      [{ thinkMs: 0, holdMs: 300, writes: 1 }],
      [{ thinkMs: 400, holdMs: 10, writes: 1 }],
    ],
    faults: [],
  });
  const firstHolder = async (s: Schedule) => {
    const ops = (await lease.run(s)).ops;
    return ops.find((op) => op.f === "acquire" && op.type === "ok")?.process;
  };

  it("each one that starts with another loses that race in a perturbation; one that starts alone does not", async () => {
    expect(clientLosesStartRace(together, 2)).toBeNull();
    for (const i of [0, 1]) {
      const lost = clientLosesStartRace(together, i)!;
      expect(lost.clients[i]!.cycles[0]!.thinkMs).toBe(together.options.latencyMs.max + 1);
      // Whatever the latency draw, the other client's request gets there first.
      for (const seed of [1, 2, 3, 4, 5]) expect(await firstHolder({ ...lost, seed })).toBe(1 - i);
      expect(perturbations(together, 50)).toContainEqual(lost);
    }
  });
});

describe("faults that never fired", () => {
  it("in the simulator: a fault due after the run ended and one aimed at a missing client did not fire", async () => {
    const s = scheduleFor("sim:lease", {
      resource: "unfenced",
      clients: [[{ thinkMs: 0, holdMs: 10, writes: 1 }], [{ thinkMs: 5, holdMs: 10, writes: 1 }]],
      faults: [
        { kind: "pause", node: "client:0", at: 50_000, durationMs: 100 },
        { kind: "pause-at", client: 1, checkpoint: "acquired", occurrence: 0, durationMs: 1500 },
        { kind: "pause", node: "client:7", at: 3, durationMs: 100 },
        { kind: "pause", node: "client:0", at: 2, durationMs: 5 },
      ],
    });
    const { ops } = await lease.run(s);
    expect(firedFaults(s, ops)).toEqual([false, true, false, true]);
    expect(withoutUnfiredFaults(s, ops)?.faults).toEqual([s.faults[1], s.faults[3]]);
  });

  it("on real servers: a partition or delay recorded as unsupported, a clock fault etcd ignored, did not fire", () => {
    const s = scheduleFor("sim:consensus", {
      resource: "fenced",
      clients: [[{ thinkMs: 0, holdMs: 10, writes: 1 }]],
      faults: [
        { kind: "partition", at: 0, durationMs: 100, a: ["server:0"], b: ["server:1"], oneWay: false },
        {
          kind: "partition",
          at: 5,
          durationMs: 100,
          a: ["client:0", "server:0"],
          b: ["server:1"],
          oneWay: false,
        },
        { kind: "clock-jump", node: "server:0", at: 10, deltaMs: 500 },
        { kind: "delay", from: "server:0", to: "server:1", at: 20, durationMs: 100, extraMs: 30 },
      ],
    });
    const nemesis = (time: number, f: string, value: Record<string, unknown>, node?: string): Op =>
      ({
        index: 0,
        time: time * 1e6,
        process: "nemesis",
        type: "info",
        f,
        value,
        ...(node ? { node } : {}),
      }) as Op;
    const ops: Op[] = [
      nemesis(0, "partition", {
        a: ["server:0"],
        b: ["server:1"],
        oneWay: false,
        durationMs: 100,
        unsupported: "server↔server links are not proxied: server:0↔server:1",
      }),
      nemesis(5, "partition", {
        a: ["client:0", "server:0"],
        b: ["server:1"],
        oneWay: false,
        durationMs: 100,
        unsupported: "server↔server links are not proxied: server:0↔server:1",
      }),
      nemesis(
        10,
        "clock-jump",
        { ref: "server:0", deltaMs: 500, ignored: "etcd ignores clock faults" },
        "server:0",
      ),
      nemesis(
        20,
        "delay",
        { from: "server:0", to: "server:1", extraMs: 30, durationMs: 100, unsupported: "not proxied" },
        "server:0",
      ),
    ];
    expect(firedFaults(s, ops)).toEqual([false, true, false, false]);
  });
});
