/**
 * Expected outcomes against a real 3-member etcd cluster (issue 4): a client paused longer
 * than its lease writes after the next holder through an unfenced resource; fencing by the
 * lock key's create revision (a fenced resource, or the fence folded into an etcd txn) stops
 * it under client pauses, a leader pause, partitions and kills. After every run nothing of
 * it is left: no process, nothing paused, no temp dir.
 */
import { describe, expect, it } from "vitest";
import type { Fault } from "../../src/schedule/schedule.js";
import { expectSeqOnAcceptedWrites } from "./apply-order.js";
import { missingBinaries } from "./helpers.js";
import { expectNothingLeftAfterEach, runChecked } from "./run-helpers.js";
import { etcdClientPause, etcdSchedule } from "./schedules.js";

const missing = missingBinaries(["redis-server", "etcd"]);

const track = expectNothingLeftAfterEach();

/**
 * The lot: the client pause, then (once another client has had time to take the lock over)
 * a partition, a pause of another client, a leader pause and a member kill with restart.
 * (A new etcd leader extends every lease, so a leader pause during client 0's pause would
 * only keep its lease alive longer.)
 */
const everything: Fault[] = [
  etcdClientPause,
  { kind: "partition", at: 1800, durationMs: 800, a: ["client:1"], b: ["server:leader"], oneWay: false },
  { kind: "pause", node: "client:2", at: 2000, durationMs: 1500 },
  { kind: "pause", node: "server:leader", at: 4000, durationMs: 1200 },
  { kind: "crash", node: "server:1", at: 4600, restartAfterMs: 600 },
];

describe.skipIf(missing.length > 0)("real etcd target", () => {
  it("etcd:lock, unfenced: a client paused longer than its lease writes after the next holder (violation)", async () => {
    const r = await runChecked(etcdSchedule("unfenced", [etcdClientPause]));
    track(r.runId);
    expect(r.run.warnings).toEqual([]);
    expect(r.violations, r.timeline).toContain("stale-write");
  });

  it("etcd:lock, fenced by create revision: no violation under client and leader pauses, partitions, kills", async () => {
    const r = await runChecked(etcdSchedule("fenced", everything, { clients: 3 }));
    track(r.runId);
    expect(r.run.warnings).toEqual([]);
    expect(r.violations, r.timeline).toEqual([]);
    // The fence had work to do: the paused client's late write was refused.
    expect(
      r.rejectedWrites.some((w) => w.process === 0),
      r.timeline,
    ).toBe(true);
    const nemesis = r.run.ops.filter((o) => o.process === "nemesis").map((o) => o.f);
    expect(nemesis).toEqual(
      expect.arrayContaining(["pause", "resume", "partition", "heal", "crash", "restart"]),
    );
  });

  it("etcd:lock, fenced-txn (the fence folded into the write): no violation under the same faults", async () => {
    const r = await runChecked(etcdSchedule("fenced-txn", everything, { clients: 3 }));
    track(r.runId);
    expect(r.run.warnings).toEqual([]);
    expect(r.violations, r.timeline).toEqual([]);
    // Each accepted txn's revision is recorded as its apply order.
    expect(expectSeqOnAcceptedWrites(r.run.ops, r.timeline)).toBeGreaterThan(0);
    expect(
      r.rejectedWrites.some((w) => w.process === 0),
      r.timeline,
    ).toBe(true);
  });
});
