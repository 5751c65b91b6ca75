/**
 * Candidates aimed by a failing run: they keep only the clients and cycles the anomaly
 * involves, re-timed, with the faults that hit them renumbered or shifted; and whatever the
 * evidence says, shrinking with them never grows a schedule nor returns one that passes.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Anomaly } from "../../src/checkers/verdict.js";
import { scheduleArb } from "../../src/generators/index.js";
import type { Op } from "../../src/history/op.js";
import { probeViolation } from "../../src/runner/same-violation.js";
import { scheduleSize, scheduleWeight } from "../../src/runner/schedule-size.js";
import { cycleSpans } from "../../src/runner/shrink/cycle-spans.js";
import { shrinkSchedule } from "../../src/runner/shrink/shrink.js";
import { shrinkCandidates } from "../../src/runner/shrink/shrink-candidates.js";
import {
  focusCandidates,
  involvedClients,
  warmFocusCandidates,
} from "../../src/runner/shrink/shrink-focus.js";
import type { Fault, Schedule } from "../../src/schedule/schedule.js";
import { leaseTokenSplitTarget } from "../locks/lease-token-split.js";
import { scheduleFor, target } from "./schedules.js";

const MS = 1e6;

/** An op without index and time, at a time in ms (per kind of op). */
type At<O> = O extends unknown ? Omit<O, "index" | "time"> & { ms: number } : never;
type Event = At<Op>;

/** A history with its indices filled in (times given in ms). */
function history(events: Event[]): Op[] {
  return events.map(({ ms, ...e }, index) => ({ ...e, index, time: Math.round(ms * MS) }) as Op);
}

const cycle = { thinkMs: 0, holdMs: 0, writes: 1 };

/**
 * Client 0 takes the lock, releases, takes it again (cycle 1) and is paused right after;
 * client 1 waits for the lease to expire and writes; client 0 wakes up and writes: a stale
 * write. Cycle 0 of client 0 and client 2 (which only held the lock for a moment) are props.
 */
const schedule: Schedule = scheduleFor("sim:lease", {
  resource: "unfenced",
  clients: [[cycle, { ...cycle, thinkMs: 10 }], [{ ...cycle, thinkMs: 21 }], [{ ...cycle, writes: 0 }]],
  faults: [
    { kind: "pause-at", client: 0, checkpoint: "before-release", occurrence: 0, durationMs: 3 },
    { kind: "pause-at", client: 0, checkpoint: "acquired", occurrence: 1, durationMs: 1500 },
    { kind: "pause", node: "client:1", at: 22, durationMs: 2 },
    { kind: "pause", node: "client:2", at: 1, durationMs: 1 },
  ],
});
const ops = history([
  { ms: 0, process: 2, type: "invoke", f: "acquire", lock: "lock" },
  { ms: 0, process: 0, type: "invoke", f: "acquire", lock: "lock" },
  { ms: 1, process: "nemesis", type: "info", f: "pause", node: "client:2", value: { ref: "client:2" } },
  { ms: 4, process: 2, type: "ok", f: "acquire", lock: "lock", grant: "2:0" },
  { ms: 4, process: 2, type: "invoke", f: "release", lock: "lock", grant: "2:0" },
  { ms: 8, process: 2, type: "ok", f: "release", lock: "lock", grant: "2:0" },
  { ms: 9, process: 0, type: "ok", f: "acquire", lock: "lock", grant: "0:0" },
  { ms: 9, process: 0, type: "invoke", f: "write", lock: "lock", grant: "0:0", value: "a" },
  { ms: 12, process: 0, type: "ok", f: "write", lock: "lock", grant: "0:0", value: "a", accepted: true },
  {
    ms: 12,
    process: "nemesis",
    type: "info",
    f: "pause",
    node: "client:0",
    value: { checkpoint: "before-release", occurrence: 0, durationMs: 3 },
  },
  { ms: 15, process: 0, type: "invoke", f: "release", lock: "lock", grant: "0:0" },
  { ms: 18, process: 0, type: "ok", f: "release", lock: "lock", grant: "0:0" },
  { ms: 21, process: 1, type: "invoke", f: "acquire", lock: "lock" },
  { ms: 22, process: "nemesis", type: "info", f: "pause", node: "client:1", value: { ref: "client:1" } },
  { ms: 28, process: 0, type: "invoke", f: "acquire", lock: "lock" },
  { ms: 33, process: 0, type: "ok", f: "acquire", lock: "lock", grant: "0:1" },
  {
    ms: 33,
    process: "nemesis",
    type: "info",
    f: "pause",
    node: "client:0",
    value: { checkpoint: "acquired", occurrence: 1, durationMs: 1500 },
  },
  { ms: 1100, process: 1, type: "ok", f: "acquire", lock: "lock", grant: "1:0" },
  { ms: 1100, process: 1, type: "invoke", f: "write", lock: "lock", grant: "1:0", value: "b" },
  { ms: 1105, process: 1, type: "ok", f: "write", lock: "lock", grant: "1:0", value: "b", accepted: true },
  { ms: 1533, process: 0, type: "invoke", f: "write", lock: "lock", grant: "0:1", value: "c" },
  { ms: 1538, process: 0, type: "ok", f: "write", lock: "lock", grant: "0:1", value: "c", accepted: true },
]);
const staleWrite: Anomaly = {
  kind: "stale-write",
  ops: [21, 19, 15, 17],
  explanation: "client 0 wrote after client 1",
};

describe("cycleSpans", () => {
  it("places each client's cycles, grants and checkpoint passes in the history", () => {
    const spans = cycleSpans(ops);
    expect(spans.byClient.get(0)?.map((s) => [s.cycle, s.grant, s.acquireSentMs, s.endMs])).toEqual([
      [0, "0:0", 0, 18],
      [1, "0:1", 28, 1538],
    ]);
    expect(spans.byGrant.get("1:0")).toMatchObject({ client: 1, cycle: 0, acquireDoneMs: 1100, writes: 1 });
    expect(spans.fastestAcquireMs).toBe(4);
  });
});

describe("focusCandidates", () => {
  const candidates = [...focusCandidates(schedule, { ops, anomalies: [staleWrite] })];

  it("keeps only the anomaly's two cycles, re-timed as in the failing run, then in grant order", () => {
    const thinks = candidates.map((c) => c.clients.map((p) => [p.id, p.cycles.map((cy) => cy.thinkMs)]));
    // As in the run: client 0's cycle 1 was sent at 28, client 1's at 21.
    expect(thinks[0]).toEqual([
      [0, [28]],
      [1, [21]],
    ]);
    // Client 1 no earlier than client 0 was granted (33).
    expect(thinks[1]).toEqual([
      [0, [28]],
      [1, [33]],
    ]);
    // And client 0 just in time to be granted at 33 (fastest acquire: 4 ms).
    expect(thinks[2]).toEqual([
      [0, [29]],
      [1, [33]],
    ]);
    for (const c of candidates) {
      expect(scheduleSize(c).clients).toBe(2);
      expect(scheduleSize(c).cycles).toBe(2);
      expect(scheduleWeight(c)).toBeLessThan(scheduleWeight(schedule));
    }
  });

  it("keeps the faults that hit kept cycles: checkpoint pauses renumbered, timed ones shifted", () => {
    expect(candidates[0]!.faults).toEqual([
      { kind: "pause-at", client: 0, checkpoint: "acquired", occurrence: 0, durationMs: 1500 },
      { kind: "pause", node: "client:1", at: 22, durationMs: 2 },
    ]);
    // Client 1 starts 12 ms later, so does its pause.
    expect(candidates[1]!.faults[1]).toEqual({ kind: "pause", node: "client:1", at: 34, durationMs: 2 });
    // Then the same with pauses twice as long.
    expect(
      candidates[3]!.faults.map((f) => (f.kind === "pause-at" || f.kind === "pause" ? f.durationMs : 0)),
    ).toEqual([3000, 4]);
  });

  it("keeps a clock fault of a dropped cycle when a kept cycle of its client ran on that clock", () => {
    // Client 0's clock stepped back during its cycle 0, which the focus drops; its cycle 1 (kept)
    // ran on the stepped clock. Client 2's drift goes with client 2, which the focus drops.
    const stepped: Schedule = {
      ...schedule,
      faults: [
        ...schedule.faults,
        { kind: "clock-jump", node: "client:0", at: 5, deltaMs: -400 },
        { kind: "clock-drift", node: "client:2", at: 2, rate: 0.5 },
      ],
    };
    const focused = [...focusCandidates(stepped, { ops, anomalies: [staleWrite] })];
    // As in the run: the step stays at 5 ms; client 2 (dropped) takes its drift with it.
    expect(focused[0]!.faults).toContainEqual({ kind: "clock-jump", node: "client:0", at: 5, deltaMs: -400 });
    expect(focused[0]!.faults.some((f) => f.kind === "clock-drift")).toBe(false);
    // The pause that hit the dropped cycle 0 still goes.
    expect(focused[0]!.faults.some((f) => f.kind === "pause-at" && f.checkpoint === "before-release")).toBe(
      false,
    );
  });

  it("offers one pause of the stale holder right after it acquired, instead of all faults", () => {
    const single = candidates.filter((c) => c.faults.length === 1).map((c) => c.faults[0]);
    expect(single).toContainEqual({
      kind: "pause-at",
      client: 0,
      checkpoint: "acquired",
      occurrence: 0,
      durationMs: 1500,
    });
    // Longest, all together (1500 + 3 + 2 + 1), twice the longest.
    const lengths = new Set(single.map((f) => (f?.kind === "pause-at" ? f.durationMs : 0)));
    expect([...lengths]).toEqual([1500, 1506, 3000]);
  });

  it("pauses the holder only at checkpoints the schedule's own pauses use", () => {
    const inFlight: Schedule = {
      ...schedule,
      faults: [{ kind: "pause-at", client: 1, checkpoint: "acquire-sent", occurrence: 0, durationMs: 700 }],
    };
    const single = [...focusCandidates(inFlight, { ops, anomalies: [staleWrite] })].flatMap((c) =>
      c.faults.length === 1 && c.faults[0]?.kind === "pause-at" && c.faults[0].client === 0
        ? [c.faults[0]]
        : [],
    );
    expect(single.length).toBeGreaterThan(0);
    expect(new Set(single.map((f) => `${f.checkpoint}/${f.occurrence}`))).toEqual(
      new Set(["acquire-sent/0"]),
    );
  });

  it("focuses a client that repeats its cycles on the pass of the plan the anomaly hit", () => {
    // Client 0 runs its one cycle over and over, as a real hunt's clients do: its second
    // acquisition (grant 0:1) is the plan's cycle 0 again.
    const repeating: Schedule = {
      ...schedule,
      clients: schedule.clients.map((c) =>
        c.id === 0 ? { id: 0, cycles: [{ ...cycle, holdMs: 5 }], repeat: true as const } : c,
      ),
    };
    const focused = [...focusCandidates(repeating, { ops, anomalies: [staleWrite] })];
    expect(focused.length).toBeGreaterThan(0);
    // Once, re-timed to when its second acquire was sent (28 ms), and no longer repeating.
    expect(focused[0]!.clients.find((c) => c.id === 0)).toEqual({
      id: 0,
      cycles: [{ ...cycle, holdMs: 5, thinkMs: 28 }],
    });
    expect(focused[0]!.faults[0]).toEqual({
      kind: "pause-at",
      client: 0,
      checkpoint: "acquired",
      occurrence: 0,
      durationMs: 1500,
    });
    for (const c of focused) expect(scheduleWeight(c)).toBeLessThan(scheduleWeight(repeating));
  });

  it("yields nothing when the anomaly names no grant of the schedule", () => {
    const none: Anomaly = { kind: "stale-write", ops: [2, 13], explanation: "nemesis only" };
    expect([...focusCandidates(schedule, { ops, anomalies: [none] })]).toEqual([]);
  });
});

describe("dropping the clients that clashed", () => {
  it("comes after every other candidate: without one of them the clash cannot happen", () => {
    const involved = involvedClients({ ops, anomalies: [staleWrite] });
    expect([...involved].sort()).toEqual([0, 1]);
    const all = [...shrinkCandidates(schedule, [], involved)];
    const fewer = all.flatMap((c, i) => (c.clients.length < schedule.clients.length ? [i] : []));
    // Client 2 (only a prop) first, in its three forms (as it is, renumbered, pauses longer) …
    expect(fewer.slice(0, 3)).toEqual([0, 1, 2]);
    expect(all.slice(0, 3).every((c) => c.clients.length === 2 && !c.clients.some((p) => p.id === 2))).toBe(
      true,
    );
    // … and clients 0 and 1 at the very end, after every candidate that keeps them all.
    const last = fewer.slice(3);
    expect(last.length).toBeGreaterThanOrEqual(4);
    expect(last).toEqual(last.map((_, k) => all.length - last.length + k));
  });
});

describe("shrinking with evidence", () => {
  const arb = scheduleArb({
    target: "sim:lease",
    resource: "unfenced",
    options: target("sim:lease").defaults,
    faults: { categories: ["pause", "clock", "partition", "crash", "delay"] },
  });

  it("never grows a schedule and never returns one that passes, whatever the evidence says", async () => {
    const t = target("sim:lease");
    await fc.assert(
      fc.asyncProperty(
        arb,
        fc.integer({ min: 1, max: 5 }),
        fc.array(fc.array(fc.nat(60), { maxLength: 4 }), { maxLength: 3 }),
        async (s, modulus, anomalyOps) => {
          // A real history of each candidate, with anomalies pointing anywhere in it.
          const probe = async (c: Schedule) => {
            const run = await t.run(c);
            const anomalies = anomalyOps.map((o) => ({ kind: "stale-write", ops: o, explanation: "" }));
            const fails = c === s || JSON.stringify(c).length % modulus === 0;
            return { fails, evidence: { ops: run.ops, anomalies } };
          };
          const start = await probe(s);
          const r = await shrinkSchedule(s, probe, { maxRuns: 100 }, start.evidence);
          expect((await probe(r.schedule)).fails).toBe(true);
          expect(scheduleWeight(r.schedule)).toBeLessThanOrEqual(scheduleWeight(s));
          const [a, b] = [scheduleSize(r.schedule), scheduleSize(s)];
          expect(a.clients).toBeLessThanOrEqual(b.clients);
          expect(a.cycles).toBeLessThanOrEqual(b.cycles);
          expect(a.faults).toBeLessThanOrEqual(b.faults);
          expect(a.writes).toBeLessThanOrEqual(b.writes);
        },
      ),
      { numRuns: 30, seed: 11 },
    );
  });
});

describe("warmFocusCandidates (real servers: libraries warm up on their first call)", () => {
  /**
   * lease-token with its token taken after the SET: client 0 takes and gives back the lock,
   * then is paused in its second acquire once the SET is out, past the lease; client 1 takes
   * the lock meanwhile and holds it when client 0 wakes and takes the higher token.
   */
  const split = leaseTokenSplitTarget();
  const paused: Schedule = {
    ...scheduleFor("sim:lease-token", {
      resource: "fenced",
      clients: [
        [
          { thinkMs: 0, holdMs: 100, writes: 1 },
          { thinkMs: 0, holdMs: 500, writes: 2 },
        ],
        [{ thinkMs: 1200, holdMs: 950, writes: 4 }],
      ],
      faults: [
        { kind: "pause-in-call", client: 0, call: "acquire", occurrence: 1, afterMs: 0, durationMs: 1500 },
      ],
    }),
    target: split.name,
  };

  it("keeps the cycle before the one a pause in a call hit, the pause renumbered to it", async () => {
    const probe = await probeViolation(split, paused, "token-order");
    expect(probe.fails).toBe(true);
    const ev = probe.evidence!;
    // The plain focus keeps only the paused acquire's cycle: its pause is then in the first call.
    const plain = [...focusCandidates(paused, ev)][0]!;
    expect(plain.clients.find((c) => c.id === 0)?.cycles).toHaveLength(1);
    expect(plain.faults[0]).toMatchObject({ kind: "pause-in-call", occurrence: 0 });
    // First that same candidate, then the one with the cycle before kept.
    const [same, warm] = [...warmFocusCandidates(paused, ev)];
    expect(same).toEqual(plain);
    expect(warm?.clients.find((p) => p.id === 0)?.cycles).toHaveLength(2);
    expect(warm?.clients.find((p) => p.id === 1)?.cycles).toHaveLength(1);
    expect(warm?.faults).toEqual([
      expect.objectContaining({ kind: "pause-in-call", client: 0, occurrence: 1 }),
    ]);
    // Timed as in the failing run, it still fails.
    expect((await probeViolation(split, warm!, "token-order")).fails).toBe(true);
  });

  it("offers nothing when the pause hit a client's first call", async () => {
    const first: Schedule = {
      ...paused,
      clients: [{ id: 0, cycles: [paused.clients[0]!.cycles[1]!] }, paused.clients[1]!],
      faults: [{ ...(paused.faults[0] as Extract<Fault, { kind: "pause-in-call" }>), occurrence: 0 }],
    };
    const probe = await probeViolation(split, first, "token-order");
    expect(probe.fails).toBe(true);
    expect([...warmFocusCandidates(first, probe.evidence!)]).toEqual([]);
  });
});
