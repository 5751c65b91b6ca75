/**
 * The expected outcomes of the real etcd target (test/real/outcomes-etcd.test.ts), on a docker
 * cluster: the same schedules on three etcd members in containers, plus what only containers
 * can do here: isolating the leader from its peers (network disconnect) while clients still
 * reach it. After every run nothing is left: no process, nothing paused, no temp dir, no
 * container or network of the run.
 */
import { describe, expect, it } from "vitest";
import type { Fault } from "../../src/schedule/schedule.js";
import {
  expectNothingLeftAfterEach,
  runChecked,
  takenOverWhilePaused,
  wroteAfterResume,
} from "../real/run-helpers.js";
import { etcdClientPause, etcdSchedule } from "../real/schedules.js";
import {
  leftovers as dockerLeftovers,
  dockerTestEnv,
  needDocker,
  skipDockerTests,
  TEST_IMAGES,
} from "./docker-env.js";

const env = await dockerTestEnv();
const onDocker = { cluster: "docker" as const, docker: { images: TEST_IMAGES } };

/**
 * test/real's fault mix plus the leader isolated from its peers, with the server faults one
 * after another (never two members out at once, so the cluster keeps its quorum and
 * `server:leader` always names someone): killing, starting and waiting for a container member
 * to be healthy again takes seconds, so the run is longer than test/real's.
 */
const everything: Fault[] = [
  etcdClientPause,
  { kind: "partition", at: 1800, durationMs: 800, a: ["client:1"], b: ["server:leader"], oneWay: false },
  { kind: "pause", node: "client:2", at: 2000, durationMs: 1500 },
  { kind: "crash", node: "server:1", at: 2700, restartAfterMs: 500 },
  { kind: "pause", node: "server:leader", at: 5000, durationMs: 1000 },
  {
    kind: "partition",
    at: 6500,
    durationMs: 1000,
    a: ["server:leader"],
    b: ["server:0", "server:1", "server:2"],
    oneWay: false,
  },
];
// Killing, starting and waiting for a container member takes seconds: a longer run, with
// contention kept up for as long (8 rounds per 6 s of horizon).
const LONG_HORIZON_MS = 9000;
const dockerLong = {
  clients: 3,
  horizonMs: LONG_HORIZON_MS,
  rounds: Math.ceil((8 * LONG_HORIZON_MS) / 6000),
};

const track = expectNothingLeftAfterEach(async (runId) => {
  if (env.available) expect(await dockerLeftovers(env.docker, runId)).toEqual([]);
});

describe.skipIf(skipDockerTests(env))("real etcd target on --cluster docker", () => {
  it("etcd:lock, unfenced: a client paused longer than its lease writes after the next holder (violation)", async () => {
    needDocker(env);
    const r = await runChecked(etcdSchedule("unfenced", [etcdClientPause], { rounds: 8 }), onDocker);
    track(r.runId);
    expect(r.run.warnings).toEqual([]);
    expect(r.violations).toContain("stale-write");
  });

  it("etcd:lock, fenced: no violation under client and leader pauses, partitions, leader isolation, kills", async () => {
    needDocker(env);
    const r = await runChecked(etcdSchedule("fenced", everything, dockerLong), onDocker);
    track(r.runId);
    expect(r.run.warnings).toEqual([]);
    expect(r.violations).toEqual([]);
    // When the lease ran out during the pause and someone took over, the fence had to refuse
    // client 0's late write, if one completed (a leader change under load may renew the lease
    // instead, and under partitions its late writes may time out).
    if (takenOverWhilePaused(r.run.ops, 0) && wroteAfterResume(r.run.ops, 0))
      expect(r.rejectedWrites.some((w) => w.process === 0)).toBe(true);
    const nemesis = r.run.ops.filter((o) => o.process === "nemesis");
    expect(nemesis.map((o) => o.f)).toEqual(
      expect.arrayContaining(["pause", "resume", "partition", "heal", "crash", "restart"]),
    );
    // The server split was made by isolating exactly one member, not recorded as unsupported.
    const split = nemesis.find(
      (o) => o.f === "partition" && (o.value as { isolated?: string[] }).isolated !== undefined,
    );
    expect(split).toBeDefined();
    const splitValue = split!.value as { isolated: string[]; unsupported?: string };
    expect(splitValue.isolated).toHaveLength(1);
    expect(splitValue.unsupported).toBeUndefined();
  });

  it("etcd:lock, fenced-txn (the fence folded into the write): no violation under the same faults", async () => {
    needDocker(env);
    const r = await runChecked(etcdSchedule("fenced-txn", everything, dockerLong), onDocker);
    track(r.runId);
    expect(r.run.warnings).toEqual([]);
    expect(r.violations).toEqual([]);
    // When the lease ran out during the pause and someone took over, the fence had to refuse
    // client 0's late write, if one completed (a leader change under load may renew the lease
    // instead, and under partitions its late writes may time out).
    if (takenOverWhilePaused(r.run.ops, 0) && wroteAfterResume(r.run.ops, 0))
      expect(r.rejectedWrites.some((w) => w.process === 0)).toBe(true);
  });
});
