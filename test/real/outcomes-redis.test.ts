/**
 * Expected outcomes against real redis-servers (issue 4): a GC-like pause longer than the TTL
 * breaks an unfenced lease and Redlock; a fencing token stops the stale write; a forward
 * clock jump on one of five nodes plus partitions breaks Redlock (the published timeline).
 * After every run nothing of it is left: no process, nothing paused, no temp dir.
 */
import { describe, expect, it } from "vitest";
import type { Op } from "../../src/history/op.js";
import { runAndCheck } from "../../src/runner/execute.js";
import type { Schedule } from "../../src/schedule/schedule.js";
import { findTarget } from "../../src/targets/index.js";
import { expectSeqOnAcceptedWrites } from "./apply-order.js";
import { missingBinaries, schedule } from "./helpers.js";
import { expectNothingLeftAfterEach, runChecked } from "./run-helpers.js";
import { pauseAfterAcquire } from "./schedules.js";

const missing = missingBinaries(["redis-server", "cc"]);

const track = expectNothingLeftAfterEach();

function simLease() {
  const t = findTarget("sim:lease");
  if (!t.ok) throw new Error(t.error.message);
  return t.value;
}

describe.skipIf(missing.length > 0)("real redis targets", () => {
  it("redis:lease, unfenced: a client paused longer than the TTL writes after the next holder (violation)", async () => {
    const r = await runChecked(pauseAfterAcquire("redis:lease", "unfenced", 1, 500));
    track(r.runId);
    expect(r.run.warnings).toEqual([]);
    expect(r.violations, r.timeline).toContain("stale-write");
    // The resource recorded its apply order with each accepted write.
    expect(expectSeqOnAcceptedWrites(r.run.ops, r.timeline)).toBeGreaterThan(1);
  });

  it("redis:lease-token, fenced: the same schedule has no violation; the stale write is rejected", async () => {
    const r = await runChecked(pauseAfterAcquire("redis:lease-token", "fenced", 1, 500));
    track(r.runId);
    expect(r.run.warnings).toEqual([]);
    expect(r.violations, r.timeline).toEqual([]);
    expect(expectSeqOnAcceptedWrites(r.run.ops, r.timeline)).toBeGreaterThan(0);
    expect(
      r.rejectedWrites.some((w) => w.process === 0),
      r.timeline,
    ).toBe(true);
  });

  it("redis:redlock, unfenced: a client paused after acquiring breaks mutual exclusion", async () => {
    const r = await runChecked(pauseAfterAcquire("redis:redlock", "unfenced", 5, 1000));
    track(r.runId);
    expect(r.run.warnings).toEqual([]);
    expect(r.violations, r.timeline).toContain("stale-write");
  });

  /**
   * Kleppmann's five-node timeline: client 0 locks A, B, C while D and E are unreachable for
   * it; C's clock jumps forward and its key expires; client 1 locks C, D, E while A and B are
   * unreachable for it; both believe they hold the lock and both writes are accepted. The
   * same schedule without the jump has no violation: client 1 cannot get a majority.
   */
  const fiveNodeTimeline = (jump: boolean): Schedule =>
    schedule(
      "redis:redlock",
      "unfenced",
      { servers: 5, ttlMs: 3000, callTimeoutMs: 300, horizonMs: 4000 },
      [
        // Holds within its TTL: without the clock jump this lock is safe.
        { id: 0, cycles: [{ thinkMs: 0, holdMs: 2400, writes: 4 }] },
        { id: 1, cycles: [{ thinkMs: 1000, holdMs: 600, writes: 3 }] },
      ],
      [
        {
          kind: "partition",
          at: 0,
          durationMs: 4000,
          a: ["client:0"],
          b: ["server:3", "server:4"],
          oneWay: false,
        },
        {
          kind: "partition",
          at: 0,
          durationMs: 4000,
          a: ["client:1"],
          b: ["server:0", "server:1"],
          oneWay: false,
        },
        ...(jump ? [{ kind: "clock-jump" as const, node: "server:2", at: 700, deltaMs: 10_000 }] : []),
      ],
    );

  it("redis:redlock, unfenced: a forward clock jump on one of five nodes plus partitions (violation)", async () => {
    const r = await runChecked(fiveNodeTimeline(true));
    track(r.runId);
    expect(r.run.warnings).toEqual([]);
    const grants = r.run.ops.filter((o) => o.process !== "nemesis" && o.f === "acquire" && o.type === "ok");
    expect(grants.map((g) => g.process).sort(), r.timeline).toEqual([0, 1]);
    expect(r.violations.length).toBeGreaterThan(0);
  });

  it("redis:redlock, unfenced: the same timeline without the clock jump has no violation", async () => {
    const r = await runChecked(fiveNodeTimeline(false));
    track(r.runId);
    expect(r.run.warnings).toEqual([]);
    expect(r.violations, r.timeline).toEqual([]);
  });

  /**
   * A pause while the acquire replies are in flight (checkpoint "acquire-sent"), longer than
   * the TTL: Redlock's validity check notices that the lease is already spent and denies;
   * the variant without the check believes it holds the lock and writes over the next holder.
   */
  const pauseWhileRepliesInFlight = (target: string): Schedule =>
    schedule(
      target,
      "unfenced",
      { servers: 5, ttlMs: 1000, callTimeoutMs: 300, horizonMs: 5000 },
      [
        { id: 0, cycles: [{ thinkMs: 0, holdMs: 800, writes: 4 }] },
        { id: 1, cycles: Array.from({ length: 12 }, () => ({ thinkMs: 200, holdMs: 200, writes: 1 })) },
      ],
      [{ kind: "pause-at", client: 0, checkpoint: "acquire-sent", occurrence: 0, durationMs: 3000 }],
    );

  it("redis:redlock-nocheck, unfenced: a pause while acquire replies are in flight (violation)", async () => {
    const r = await runChecked(pauseWhileRepliesInFlight("redis:redlock-nocheck"));
    track(r.runId);
    expect(r.run.warnings).toEqual([]);
    expect(r.violations.length, r.timeline).toBeGreaterThan(0);
  });

  it("redis:redlock, unfenced: the validity check denies the paused acquire (no violation)", async () => {
    const r = await runChecked(pauseWhileRepliesInFlight("redis:redlock"));
    track(r.runId);
    expect(r.run.warnings).toEqual([]);
    expect(r.violations, r.timeline).toEqual([]);
    const first = r.run.ops.find((o) => o.process === 0 && o.f === "acquire" && o.type !== "invoke");
    // The replies did arrive (a majority said yes), but too late: the lease was already spent.
    expect(first, r.timeline).toMatchObject({ type: "fail", error: "validity-expired" });
  });

  /**
   * The schedule's `partitionMode` decides what a two-way partition does to the client's TCP
   * connection: cut resets it, so client 0's acquire fails at once as unreachable (nothing was
   * sent); blackhole holds its request, so the acquire times out (it may have been applied).
   */
  const cutOffAcquire = (mode: Schedule["partitionMode"]): Schedule => ({
    ...schedule(
      "redis:lease",
      "unfenced",
      { servers: 1, ttlMs: 3000, callTimeoutMs: 300, horizonMs: 2500 },
      [
        { id: 0, cycles: [{ thinkMs: 100, holdMs: 0, writes: 0 }] },
        { id: 1, cycles: [{ thinkMs: 900, holdMs: 0, writes: 0 }] },
      ],
      [{ kind: "partition", at: 50, durationMs: 600, a: ["client:0"], b: ["server:0"], oneWay: false }],
    ),
    ...(mode === undefined ? {} : { partitionMode: mode }),
  });

  it.each([
    [undefined, "fail", "unreachable"],
    ["blackhole", "info", "timeout"],
  ] as const)("partitionMode %s: the cut-off client's acquire ends %s (%s)", async (mode, type, error) => {
    const r = await runChecked(cutOffAcquire(mode));
    track(r.runId);
    expect(r.run.warnings).toEqual([]);
    const cut = r.run.ops.find((o) => o.process === "nemesis" && o.f === "partition");
    expect(cut?.value, r.timeline).toMatchObject({ mode: mode ?? "cut" });
    const acquired = r.run.ops.find((o) => o.process === 0 && o.f === "acquire" && o.type !== "invoke");
    expect(acquired, r.timeline).toMatchObject({ type, error });
  });

  /**
   * A client's clock drift reaches the deadlines of its calls, as in the simulator: client 0's
   * clock runs at a fifth of true speed and its acquire, black-holed, waits out its timeout by
   * that clock, about 2 s of true time in sim:lease. (On the machine's timers it gave up after
   * 0.4 s.)
   */
  it("a client whose clock runs slow waits longer for a call, by its own clock, as in sim:lease", async () => {
    const slow: Schedule = {
      ...schedule(
        "redis:lease",
        "unfenced",
        { servers: 1, ttlMs: 1000, callTimeoutMs: 200, horizonMs: 6000 },
        [{ id: 0, cycles: [{ thinkMs: 100, holdMs: 0, writes: 0 }] }],
        [
          { kind: "clock-drift", node: "client:0", at: 0, rate: -0.8 },
          { kind: "partition", at: 0, durationMs: 5000, a: ["client:0"], b: ["server:0"], oneWay: false },
        ],
      ),
      partitionMode: "blackhole",
    };
    const waited = (ops: readonly Op[]): number => {
      const mine = ops.filter((o) => o.process === 0 && o.f === "acquire");
      expect(mine.map((o) => o.type)).toEqual(["invoke", "info"]);
      return (mine[1]!.time - mine[0]!.time) / 1e6;
    };
    const sim = await runAndCheck(simLease(), { ...slow, target: "sim:lease" });
    const real = await runChecked(slow);
    track(real.runId);
    expect(real.run.warnings).toEqual([]);
    const simMs = waited(sim.ops);
    expect(simMs).toBeGreaterThan(1500);
    expect(waited(real.run.ops), real.timeline).toBeGreaterThan(0.75 * simMs);
  });
});
