/**
 * Timed client pauses, partitions and delays aimed at the point of the client's work they hit
 * (aim-faults.ts, used at the end of shrink-real.ts): on real servers the clients' pace
 * differs from run to run, so a fault at a time may find the holder elsewhere in a replay;
 * aimed at a checkpoint or inside a call it lands at the same point of the client's work on
 * every run.
 */
import { describe, expect, it } from "vitest";
import type { Op } from "../../src/history/op.js";
import { probeViolation } from "../../src/runner/same-violation.js";
import {
  aimedDelay,
  aimedPartition,
  aimedPause,
  withFaultsAimed,
} from "../../src/runner/shrink/aim-faults.js";
import type { Fault, Schedule } from "../../src/schedule/schedule.js";
import type { Target } from "../../src/targets/target.js";
import { shrinkOnSimServers } from "./fake-real-shrink.js";
import { scheduleFor, target } from "./schedules.js";

const lease = target("sim:lease");

const op = (ms: number, type: Op["type"], f: Op["f"], process = 0): Op =>
  ({ index: 0, time: ms * 1e6, process, type, f }) as Op;

/**
 * Client 0: acquire 10–12, write 100–101, write 3000–3001, release 3002–3003, then an acquire
 * from 3500 that fails at 3510; client 1 writes at 25.
 */
const ops: Op[] = [
  op(10, "invoke", "acquire"),
  op(12, "ok", "acquire"),
  op(25, "invoke", "write", 1),
  op(100, "invoke", "write"),
  op(101, "ok", "write"),
  op(3000, "invoke", "write"),
  op(3001, "ok", "write"),
  op(3002, "invoke", "release"),
  op(3003, "ok", "release"),
  op(3500, "invoke", "acquire"),
  op(3510, "fail", "acquire"),
];

/** When client 0's first acquire was granted, in ms. */
const grantMs = (history: readonly Op[]): number =>
  history.find((o) => o.process === 0 && o.f === "acquire" && o.type === "ok")!.time / 1e6;

/** When the run's first nemesis op `f` came, in ms. */
const startMs = (history: readonly Op[], f: string): number =>
  history.find((o) => o.process === "nemesis" && o.f === f)!.time / 1e6;

/** `s` with client 0 thinking `thinkMs` before its first cycle. */
const withThink = (s: Schedule, thinkMs: number): Schedule => ({
  ...s,
  clients: s.clients.map((c) => (c.id === 0 ? { ...c, cycles: [{ ...c.cycles[0]!, thinkMs }] } : c)),
});

/**
 * Client 0 starts after `thinkMs` and writes twice in a 600 ms hold; it is frozen at 150 ms
 * for 2.5 s. Client 1 takes the lock at 1.5 s and writes. With client 0 holding at 150 ms (it
 * starts at 0 or 100), its lease runs out while it is frozen and its write on waking is stale;
 * starting later, it is frozen while it thinks, and nothing breaks.
 */
function pausedHolder(thinkMs: number): Schedule {
  return scheduleFor("sim:lease", {
    resource: "unfenced",
    clients: [[{ thinkMs, holdMs: 600, writes: 2 }], [{ thinkMs: 1500, holdMs: 100, writes: 1 }]],
    faults: [{ kind: "pause", node: "client:0", at: 150, durationMs: 2500 }],
  });
}

/**
 * Shrinks `found` (a stale write) on "real servers" that are the simulator with client 0
 * starting up to `jitterMs` late: the clients' pace differs from run to run, as on real
 * servers. No shrinking budget: only the finishing steps run.
 */
async function shrinkOnJitteredServers(t: Target, found: Schedule, jitterMs: number) {
  let draw = 0;
  const jittered = (s: Schedule): Schedule => ({
    ...s,
    clients: s.clients.map((c) =>
      c.id === 0
        ? { ...c, cycles: [{ ...c.cycles[0]!, thinkMs: c.cycles[0]!.thinkMs + ((++draw * 97) % jitterMs) }] }
        : c,
    ),
  });
  return shrinkOnSimServers(t, found, {
    runs: 4,
    needed: 4,
    budget: { maxRuns: 0 },
    runOnServers: async (s) => (await t.run(jittered(s))).ops,
  });
}

describe("aiming timed pauses", () => {
  it("a pause in a hold comes as long after the client's last checkpoint as it did; one inside an acquire stays inside it", () => {
    const pauseAt = (checkpoint: string, occurrence: number, afterMs?: number) => ({
      kind: "pause-at",
      client: 0,
      checkpoint,
      occurrence,
      ...(afterMs === undefined ? {} : { afterMs }),
      durationMs: 2000,
    });
    // In the sleep after the grant, after a write, inside a write, inside the release.
    expect(aimedPause(0, 30, 2000, ops)).toEqual(pauseAt("acquired", 0, 18));
    expect(aimedPause(0, 500, 2000, ops)).toEqual(pauseAt("before-write", 0, 400));
    expect(aimedPause(0, 100.2, 2000, ops)).toEqual(pauseAt("before-write", 0, 1));
    expect(aimedPause(0, 3002.5, 2000, ops)).toEqual(pauseAt("before-release", 0, 1));
    // Within 10 ms before the next write or release: at that call's checkpoint itself.
    expect(aimedPause(0, 2991, 2000, ops)).toEqual(pauseAt("before-write", 1));
    expect(aimedPause(0, 3001.5, 2000, ops)).toEqual(pauseAt("before-release", 0));
    expect(aimedPause(0, 11.6, 2000, ops)).toEqual({
      kind: "pause-in-call",
      client: 0,
      call: "acquire",
      occurrence: 0,
      afterMs: 1,
      durationMs: 2000,
    });
    expect(aimedPause(0, 3505, 2000, ops)).toMatchObject({
      kind: "pause-in-call",
      occurrence: 1,
      afterMs: 5,
    });
    // Before the client's first call, between a release and the next acquire, after its last
    // op, or of a client with no calls: not aimed.
    expect(aimedPause(0, 5, 2000, ops)).toBeNull();
    expect(aimedPause(0, 3200, 2000, ops)).toBeNull();
    expect(aimedPause(0, 4000, 2000, ops)).toBeNull();
    expect(aimedPause(2, 100, 2000, ops)).toBeNull();
  });

  it("only client pauses are aimed; a schedule with none to aim gives null", () => {
    const s = scheduleFor("sim:lease", {
      resource: "unfenced",
      clients: [[{ thinkMs: 0, holdMs: 10, writes: 1 }]],
      faults: [
        { kind: "pause", node: "server:0", at: 500, durationMs: 100 },
        { kind: "pause", node: "client:0", at: 500, durationMs: 100 },
      ],
    });
    const aimed = withFaultsAimed(s, ops)!;
    expect(aimed.faults[0]).toEqual(s.faults[0]);
    expect(aimed.faults[1]).toMatchObject({
      kind: "pause-at",
      checkpoint: "before-write",
      occurrence: 0,
      afterMs: 400,
    });
    expect(withFaultsAimed({ ...s, faults: [s.faults[0]!] }, ops)).toBeNull();
  });

  it("in the simulator: at a time the pause misses a client that starts later; aimed, it hits at every pace", async () => {
    const found = await probeViolation(lease, pausedHolder(0), "stale-write");
    expect(found.fails).toBe(true);
    const aimed = withFaultsAimed(pausedHolder(0), found.evidence!.ops)!;
    // In the sleep after its grant: that long after the grant.
    const afterMs = Math.ceil(150 - grantMs(found.evidence!.ops));
    expect(aimed.faults).toEqual([
      { kind: "pause-at", client: 0, checkpoint: "acquired", occurrence: 0, afterMs, durationMs: 2500 },
    ]);
    const timed: boolean[] = [];
    for (const thinkMs of [0, 100, 200, 300]) {
      timed.push((await probeViolation(lease, pausedHolder(thinkMs), "stale-write")).fails);
      const r = await probeViolation(lease, withThink(aimed, thinkMs), "stale-write");
      expect(r.fails, `think ${thinkMs}`).toBe(true);
      // The pause came as long after the grant as in the failing run, whatever the client's pace.
      expect(startMs(r.evidence!.ops, "pause") - grantMs(r.evidence!.ops)).toBeCloseTo(afterMs, 0);
    }
    expect(timed).toEqual([true, true, false, false]);
  });

  it("shrinking a real failure ends with its timed pause aimed where it hit in the failing run", async () => {
    const r = await shrinkOnJitteredServers(lease, pausedHolder(0), 300);
    expect(r.schedule.faults).toEqual([
      {
        kind: "pause-at",
        client: 0,
        checkpoint: "acquired",
        occurrence: 0,
        afterMs: expect.any(Number),
        durationMs: 2500,
      },
    ]);
    // The failing run's client 0 started late (up to 300 ms), so its grant came up to 150 ms before the pause.
    expect(r.schedule.faults[0]).toHaveProperty(
      "afterMs",
      expect.toSatisfy((ms: number) => ms >= 1 && ms <= 150),
    );
    expect(r.confirmed).toEqual({ failed: 4, runs: 4 });
  });
});

const consensus = target("sim:consensus");
const MEMBERS = ["server:0", "server:1", "server:2"];

/**
 * sim:consensus (an etcd-like lock that renews its lease): client 0 starts after `thinkMs` and
 * holds for 3 s, writing every 500 ms; client 1 tries at 1.2 s. `fault` cuts client 0 off from
 * every member for 2.5 s: its renewals fail, its lease ends, client 1 takes the lock and
 * writes, and client 0, holding on, writes after it — if the cut came while it held.
 */
function cutHolder(thinkMs: number, fault: Fault): Schedule {
  return scheduleFor("sim:consensus", {
    resource: "unfenced",
    clients: [[{ thinkMs, holdMs: 3000, writes: 6 }], [{ thinkMs: 1200, holdMs: 100, writes: 1 }]],
    faults: [fault],
  });
}

const timedCut: Extract<Fault, { kind: "partition" }> = {
  kind: "partition",
  at: 150,
  durationMs: 2500,
  a: ["client:0"],
  b: MEMBERS,
  oneWay: false,
};

describe("aiming timed partitions", () => {
  it("a cut of one client in a hold comes as long after its last checkpoint as it did, from either side", () => {
    const cut = (f: Partial<Extract<Fault, { kind: "partition" }>>) => ({ ...timedCut, at: 500, ...f });
    const expected = {
      kind: "partition-at",
      client: 0,
      checkpoint: "before-write",
      occurrence: 0,
      afterMs: 400,
      durationMs: 2500,
      nodes: MEMBERS,
    };
    expect(aimedPartition(cut({}), ops)).toEqual(expected);
    expect(aimedPartition(cut({ a: MEMBERS, b: ["client:0"] }), ops)).toEqual(expected);
    expect(aimedPartition(cut({ at: 30 }), ops)).toMatchObject({
      checkpoint: "acquired",
      occurrence: 0,
      afterMs: 18,
    });
    expect(aimedPartition(cut({ at: 100.5 }), ops)).toMatchObject({ checkpoint: "before-write", afterMs: 1 });
    const atRelease = aimedPartition(cut({ at: 3001.5 }), ops);
    expect(atRelease).toMatchObject({ checkpoint: "before-release", occurrence: 0 });
    expect(atRelease).not.toHaveProperty("afterMs");
    // One way: the same point, and which way: from the client ("out") or towards it ("in").
    expect(aimedPartition(cut({ oneWay: true }), ops)).toEqual({ ...expected, direction: "out" });
    expect(aimedPartition(cut({ oneWay: true, a: MEMBERS, b: ["client:0"] }), ops)).toEqual({
      ...expected,
      direction: "in",
    });
    // Inside an acquire: after its before-acquire checkpoint, as long after the acquire's call.
    expect(aimedPartition(cut({ at: 11.6 }), ops)).toEqual({
      ...expected,
      checkpoint: "before-acquire",
      occurrence: 0,
      afterMs: 1,
    });
    expect(aimedPartition(cut({ at: 3500.2 }), ops)).toEqual({
      ...expected,
      checkpoint: "before-acquire",
      occurrence: 1,
      afterMs: undefined,
    });
    // Two clients, clients on both sides, out of a hold: not aimed.
    expect(aimedPartition(cut({ a: ["client:0", "client:1"] }), ops)).toBeNull();
    expect(aimedPartition(cut({ b: ["client:1", "server:0"] }), ops)).toBeNull();
    expect(aimedPartition(cut({ at: 3200 }), ops)).toBeNull();
  });

  it("in the simulator: at a time the cut misses a client that starts later; aimed, it cuts the holder at every pace", async () => {
    const found = await probeViolation(consensus, cutHolder(0, timedCut), "stale-write");
    expect(found.fails).toBe(true);
    const aimed = withFaultsAimed(cutHolder(0, timedCut), found.evidence!.ops)!;
    const fault = aimed.faults[0]!;
    const afterMs = Math.ceil(150 - grantMs(found.evidence!.ops));
    expect(fault).toEqual({
      kind: "partition-at",
      client: 0,
      checkpoint: "acquired",
      occurrence: 0,
      afterMs,
      durationMs: 2500,
      nodes: MEMBERS,
    });
    const timed: boolean[] = [];
    for (const thinkMs of [0, 100, 200, 300, 500]) {
      timed.push((await probeViolation(consensus, cutHolder(thinkMs, timedCut), "stale-write")).fails);
      const r = await probeViolation(consensus, cutHolder(thinkMs, fault), "stale-write");
      expect(r.fails, `think ${thinkMs}`).toBe(true);
      expect(startMs(r.evidence!.ops, "partition") - grantMs(r.evidence!.ops)).toBeCloseTo(afterMs, 0);
    }
    expect(timed).toEqual([true, true, false, false, false]);
  });

  it("in the simulator: a one-way cut of what the holder sends, aimed, cuts only that way at every pace", async () => {
    const oneWay = { ...timedCut, oneWay: true };
    const found = await probeViolation(consensus, cutHolder(0, oneWay), "stale-write");
    expect(found.fails).toBe(true);
    const fault = withFaultsAimed(cutHolder(0, oneWay), found.evidence!.ops)!.faults[0]!;
    expect(fault).toMatchObject({ kind: "partition-at", client: 0, direction: "out", nodes: MEMBERS });
    for (const thinkMs of [0, 200, 500]) {
      const r = await probeViolation(consensus, cutHolder(thinkMs, fault), "stale-write");
      expect(r.fails, `think ${thinkMs}`).toBe(true);
      const start = r.evidence!.ops.find((o) => o.process === "nemesis" && o.f === "partition")!;
      expect(start.value).toMatchObject({ a: ["client:0"], b: MEMBERS, oneWay: true });
    }
    // Towards the client only: the members' side is cut from the client, not the other way.
    const inward = { ...fault, direction: "in" as const };
    const { ops: inOps } = await consensus.run(cutHolder(0, inward));
    const start = inOps.find((o) => o.process === "nemesis" && o.f === "partition")!;
    expect(start.value).toMatchObject({ a: MEMBERS, b: ["client:0"], oneWay: true });
  });

  it("in the simulator: a cut aimed inside an acquire comes as long after the acquire's call at every pace", async () => {
    const inAcquire: Fault = {
      kind: "partition-at",
      client: 0,
      checkpoint: "before-acquire",
      occurrence: 0,
      afterMs: 3,
      durationMs: 2500,
      nodes: MEMBERS,
    };
    for (const thinkMs of [0, 200, 500]) {
      const { ops: history } = await consensus.run(cutHolder(thinkMs, inAcquire));
      const acquired = history.find((o) => o.process === 0 && o.f === "acquire" && o.type === "invoke")!;
      expect(startMs(history, "partition") - acquired.time / 1e6, `think ${thinkMs}`).toBeCloseTo(3, 0);
    }
  });

  it("shrinking a real failure ends with its timed partition aimed where it hit in the failing run", async () => {
    const r = await shrinkOnJitteredServers(consensus, cutHolder(0, timedCut), 400);
    // The one finishing step that made a candidate, kept: it failed on every jittered run.
    expect(r.finishing).toEqual([{ step: "faults aimed", kept: true, failed: 4, runs: 4 }]);
    expect(r.schedule.faults).toEqual([
      {
        kind: "partition-at",
        client: 0,
        checkpoint: "acquired",
        occurrence: 0,
        afterMs: expect.toSatisfy((ms: number) => ms >= 1 && ms <= 150),
        durationMs: 2500,
        nodes: MEMBERS,
      },
    ]);
    expect(r.confirmed).toEqual({ failed: 4, runs: 4 });
  });
});

/**
 * sim:lease, TTL 500 ms, calls time out after 200 ms: client 0 starts after `thinkMs`, holds
 * 300 ms and writes at the end of it; client 1 tries from 400 ms and takes the lock once client
 * 0's lease ends. `fault` delays client 0's link to the resource by 1.5 s: if it catches client
 * 0's write, that write lands after client 1's, a stale write.
 */
function delayedHolder(thinkMs: number, fault: Fault): Schedule {
  return scheduleFor("sim:lease", {
    resource: "unfenced",
    options: { ttlMs: 500, callTimeoutMs: 200, horizonMs: 2000 },
    clients: [
      [
        { thinkMs, holdMs: 300, writes: 1 },
        { thinkMs: 2500, holdMs: 0, writes: 0 },
      ],
      [{ thinkMs: 400, holdMs: 0, writes: 1 }],
    ],
    faults: [fault],
  });
}

const timedDelay: Extract<Fault, { kind: "delay" }> = {
  kind: "delay",
  from: "client:0",
  to: "resource",
  at: 250,
  durationMs: 100,
  extraMs: 1500,
};

describe("aiming timed delays", () => {
  const delay = (f: Partial<Extract<Fault, { kind: "delay" }>>) => ({ ...timedDelay, ...f });
  const delayAt = (f: Record<string, unknown>) => ({
    kind: "delay-at",
    client: 0,
    node: "resource",
    direction: "out",
    durationMs: 100,
    extraMs: 1500,
    ...f,
  });

  it("a delay of one client's link that caught a call of it comes at that call's checkpoint, numbered by the client's calls", () => {
    // Writes to the resource: the second write was made inside the delay.
    expect(aimedDelay(delay({ at: 2990, durationMs: 500 }), ops)).toEqual(
      delayAt({ checkpoint: "before-write", occurrence: 1, durationMs: 500 }),
    );
    // The resource's replies; the first write, made before the delay and answered inside it.
    expect(aimedDelay(delay({ from: "resource", to: "client:0", at: 50, durationMs: 100 }), ops)).toEqual(
      delayAt({ checkpoint: "before-write", occurrence: 0, direction: "in" }),
    );
    expect(aimedDelay(delay({ at: 100.5 }), ops)).toEqual(
      delayAt({ checkpoint: "before-write", occurrence: 0, afterMs: 1 }),
    );
    // A lock server's link carries acquires and releases.
    expect(aimedDelay(delay({ from: "server:0", to: "client:0", at: 3400, durationMs: 200 }), ops)).toEqual(
      delayAt({
        checkpoint: "before-acquire",
        occurrence: 1,
        node: "server:0",
        direction: "in",
        durationMs: 200,
      }),
    );
    expect(aimedDelay(delay({ to: "server:leader", at: 3002.5 }), ops)).toEqual(
      delayAt({ checkpoint: "before-release", occurrence: 0, afterMs: 1, node: "server:leader" }),
    );
    // A call never answered is open from its invoke on: client 1's write at 25.
    expect(aimedDelay(delay({ from: "client:1", at: 30 }), ops)).toEqual(
      delayAt({ client: 1, checkpoint: "before-write", occurrence: 0, afterMs: 5 }),
    );
    // No call of the client over that link while it was on; not one client's link: not aimed.
    expect(aimedDelay(delay({ at: 200, durationMs: 1000 }), ops)).toBeNull();
    expect(aimedDelay(delay({ to: "server:0", at: 200, durationMs: 1000 }), ops)).toBeNull();
    expect(aimedDelay(delay({ to: "client:1", at: 90 }), ops)).toBeNull();
    expect(aimedDelay(delay({ from: "server:0", at: 90 }), ops)).toBeNull();
  });

  it("withFaultsAimed aims the delays that caught a call and leaves the others as they are", () => {
    const s = delayedHolder(0, delay({ at: 90, durationMs: 20 }));
    const missed = delay({ at: 200, durationMs: 1000 });
    const aimed = withFaultsAimed({ ...s, faults: [...s.faults, missed] }, ops)!;
    expect(aimed.faults).toEqual([
      delayAt({ checkpoint: "before-write", occurrence: 0, durationMs: 20 }),
      missed,
    ]);
    expect(withFaultsAimed({ ...s, faults: [missed] }, ops)).toBeNull();
  });

  it("in the simulator: at a time the delay misses the write of a client that starts later; aimed, it catches it at every pace", async () => {
    const found = await probeViolation(lease, delayedHolder(0, timedDelay), "stale-write");
    expect(found.fails).toBe(true);
    const aimed = withFaultsAimed(delayedHolder(0, timedDelay), found.evidence!.ops)!;
    const fault = aimed.faults[0]!;
    expect(fault).toEqual(delayAt({ checkpoint: "before-write", occurrence: 0 }));
    const timed: boolean[] = [];
    for (const thinkMs of [0, 100, 200, 300]) {
      timed.push((await probeViolation(lease, delayedHolder(thinkMs, timedDelay), "stale-write")).fails);
      const r = await probeViolation(lease, delayedHolder(thinkMs, fault), "stale-write");
      expect(r.fails, `think ${thinkMs}`).toBe(true);
      const write = r.evidence!.ops.find((o) => o.process === 0 && o.f === "write" && o.type === "invoke")!;
      expect(startMs(r.evidence!.ops, "delay")).toBe(write.time / 1e6);
    }
    expect(timed).toEqual([true, false, false, false]);
  });

  it("shrinking a real failure ends with its timed delay aimed at the write it caught", async () => {
    const r = await shrinkOnJitteredServers(lease, delayedHolder(0, timedDelay), 300);
    expect(r.finishing).toEqual([{ step: "faults aimed", kept: true, failed: 4, runs: 4 }]);
    expect(r.schedule.faults).toEqual([delayAt({ checkpoint: "before-write", occurrence: 0 })]);
    expect(r.confirmed).toEqual({ failed: 4, runs: 4 });
  });
});
