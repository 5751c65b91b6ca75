/**
 * Expected outcomes, unsafe side: fuzzing finds the known violations, shrinks them, and the
 * shrunk counterexample still fails when replayed.
 */
import { describe, expect, it } from "vitest";
import { runAndCheck } from "../../src/runner/execute.js";
import { type FuzzOptions, fuzz } from "../../src/runner/fuzz.js";
import { scheduleSize } from "../../src/runner/schedule-size.js";
import { leaseTokenSplitTarget } from "../locks/lease-token-split.js";
import { scheduleFor, target } from "./schedules.js";

async function findViolation(o: Omit<FuzzOptions, "seed" | "runs"> & { seed?: number; runs?: number }) {
  const r = await fuzz({ seed: 1, runs: 2000, ...o });
  expect(r.error).toBeNull();
  expect(r.counterexample, `no violation in ${r.runs} runs`).not.toBeNull();
  const ce = r.counterexample!;
  // The saved verdicts say so, and replaying the minimal schedule fails again.
  expect(ce.verdicts.some((v) => v.valid === false)).toBe(true);
  const again = await runAndCheck(o.target, ce.schedule);
  expect(again.violation).toBe(true);
  const before = scheduleSize(ce.original);
  const after = scheduleSize(ce.schedule);
  expect(after.clients).toBeLessThanOrEqual(before.clients);
  expect(after.faults).toBeLessThanOrEqual(before.faults);
  expect(after.cycles).toBeLessThanOrEqual(before.cycles);
  return ce;
}

describe("fuzzing finds the known violations", () => {
  it("lease-token with its token taken after the SET, fenced, client pauses: tokens inverted", async () => {
    const ce = await findViolation({
      target: leaseTokenSplitTarget(),
      resource: "fenced",
      faults: ["pause"],
    });
    const inverted = ce.verdicts.find((v) => v.checker === "token-order");
    expect(inverted?.anomalies[0]?.kind).toBe("token-inverted");
    // One client paused between its SET and its INCR, for longer than the lease.
    expect(ce.schedule.clients).toHaveLength(2);
    expect(ce.schedule.faults).toHaveLength(1);
    // The recipe itself, SET and INCR in one script, shows nothing on the same campaign.
    const fixed = await fuzz({
      target: target("sim:lease-token"),
      resource: "fenced",
      faults: ["pause"],
      seed: 1,
      runs: 2000,
    });
    expect(fixed.counterexample).toBeNull();
  });

  it("lease, unfenced, client pause (GC pause at a time)", async () => {
    const ce = await findViolation({
      target: target("sim:lease"),
      resource: "unfenced",
      faults: ["pause"],
      faultBounds: { pauses: ["client"] },
    });
    expect(ce.schedule.clients.length).toBeLessThanOrEqual(2);
    expect(ce.schedule.faults).toHaveLength(1);
  });

  it("redlock, unfenced, client pause after acquiring", async () => {
    const ce = await findViolation({
      target: target("sim:redlock"),
      resource: "unfenced",
      faults: ["pause"],
      faultBounds: { pauses: ["checkpoint"], checkpoints: ["acquired"] },
    });
    expect(ce.schedule.faults).toEqual([
      expect.objectContaining({ kind: "pause-at", checkpoint: "acquired" }),
    ]);
  });

  it("redlock-nocheck, unfenced, pause while acquire replies are in flight — redlock survives the same schedule", async () => {
    const ce = await findViolation({
      target: target("sim:redlock-nocheck"),
      resource: "unfenced",
      faults: ["pause"],
      faultBounds: { pauses: ["checkpoint"], checkpoints: ["acquire-sent"] },
    });
    expect(ce.schedule.faults.length).toBeLessThanOrEqual(2);
    const withCheck = await runAndCheck(target("sim:redlock"), { ...ce.schedule, target: "sim:redlock" });
    expect(withCheck.violation).toBe(false);
    // (test/locks/redlock.test.ts pins the mechanism: the validity check denies the grant.)
  });

  it("consensus, unfenced, client pause", async () => {
    await findViolation({
      target: target("sim:consensus"),
      resource: "unfenced",
      faults: ["pause"],
      faultBounds: { pauses: ["client"] },
    });
  });

  for (const name of ["sim:consensus", "sim:zk"] as const) {
    it(`${name}, unfenced, partitions alone: a holder cut off from the lock servers writes after its lease is gone`, async () => {
      const ce = await findViolation({ target: target(name), resource: "unfenced", faults: ["partition"] });
      // What breaks it: a client cut off from (shrunk: some of) the lock servers while it holds,
      // so that its renewals fail...
      const cuts = ce.schedule.faults.filter((f) => f.kind === "partition");
      expect(cuts.length).toBeGreaterThan(0);
      for (const f of cuts) {
        expect(f.a.every((n) => n.startsWith("client:"))).toBe(true);
        expect(f.b.every((n) => n.startsWith("server:"))).toBe(true);
      }
      // ... during a hold longer than the lease: holds of at most 0.8 x TTL never outlive it.
      const holds = ce.schedule.clients.flatMap((c) => c.cycles.map((cy) => cy.holdMs));
      expect(Math.max(...holds)).toBeGreaterThan(ce.schedule.options.ttlMs);
    });
  }

  it("lease-token: a crash of its node (no persistence) resets the counter and a token is reused", async () => {
    const ce = await findViolation({
      target: target("sim:lease-token"),
      resource: "fenced",
      faults: ["crash"],
    });
    expect(ce.schedule.faults).toEqual([expect.objectContaining({ kind: "crash", node: "server:0" })]);
    const tokenOrder = ce.verdicts.find((v) => v.checker === "token-order");
    expect(tokenOrder?.valid).toBe(false);
    // The fenced resource still rejected every stale write.
    expect(ce.verdicts.find((v) => v.checker === "stale-write")?.valid).toBe(true);
  });

  it("redlock, unfenced, clock faults and partitions", async () => {
    await findViolation({
      target: target("sim:redlock"),
      resource: "unfenced",
      faults: ["clock", "partition"],
      runs: 4000,
    });
  });
});

describe("the published five-node Redlock timeline", () => {
  // Client 0 locks server 0, 1, 2 while 3 and 4 are unreachable; server 2's clock jumps
  // forward and its key expires; client 1 locks 2, 3, 4 (0 and 1 still refuse it, holding
  // client 0's key). Both believe they hold the lock, and client 0 writes last.
  const timeline = scheduleFor("sim:redlock", {
    resource: "unfenced",
    clients: [[{ thinkMs: 0, holdMs: 400, writes: 2 }], [{ thinkMs: 150, holdMs: 200, writes: 2 }]],
    faults: [
      {
        kind: "partition",
        at: 0,
        durationMs: 2000,
        a: ["client:0"],
        b: ["server:3", "server:4"],
        oneWay: false,
      },
      { kind: "clock-jump", node: "server:2", at: 100, deltaMs: 2000 },
    ],
  });

  it("breaks mutual exclusion: a stale write is accepted", async () => {
    const r = await runAndCheck(target("sim:redlock"), timeline);
    expect(r.violation).toBe(true);
    const stale = r.verdicts.find((v) => v.checker === "stale-write");
    expect(stale?.valid).toBe(false);
    const grants = r.ops.filter((o) => o.f === "acquire" && o.type === "ok").map((o) => o.process);
    expect(grants).toEqual([0, 1]);
  });

  it("needs the clock jump: without it, client 1 cannot get a majority", async () => {
    const r = await runAndCheck(target("sim:redlock"), { ...timeline, faults: timeline.faults.slice(0, 1) });
    expect(r.violation).toBe(false);
  });
});
