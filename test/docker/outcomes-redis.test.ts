/**
 * The expected outcomes of the real Redis targets (test/real/outcomes-redis.test.ts), on a
 * docker cluster: the same schedules, clients, faults and checkers, with the servers and the
 * resource in containers. The clock-jump timeline cannot run on containers and must be refused
 * up front with the reason; the same timeline without the jump runs. After every run nothing is
 * left: no process, nothing paused, no temp dir, no container or network of the run.
 */
import { describe, expect, it } from "vitest";
import type { Schedule } from "../../src/schedule/schedule.js";
import { schedule } from "../real/helpers.js";
import { expectNothingLeftAfterEach, runChecked } from "../real/run-helpers.js";
import { pauseAfterAcquire } from "../real/schedules.js";
import {
  leftovers as dockerLeftovers,
  dockerTestEnv,
  needDocker,
  skipDockerTests,
  TEST_IMAGES,
} from "./docker-env.js";

const env = await dockerTestEnv();
const onDocker = { cluster: "docker" as const, docker: { images: TEST_IMAGES } };

/** Kleppmann's five-node Redlock timeline (as in test/real), with or without C's clock jump. */
const fiveNodeTimeline = (jump: boolean): Schedule =>
  schedule(
    "redis:redlock",
    "unfenced",
    { servers: 5, ttlMs: 2000, callTimeoutMs: 300, horizonMs: 3000 },
    [
      { id: 0, cycles: [{ thinkMs: 0, holdMs: 1500, writes: 3 }] },
      { id: 1, cycles: [{ thinkMs: 400, holdMs: 600, writes: 3 }] },
    ],
    [
      {
        kind: "partition",
        at: 0,
        durationMs: 2500,
        a: ["client:0"],
        b: ["server:3", "server:4"],
        oneWay: false,
      },
      {
        kind: "partition",
        at: 0,
        durationMs: 2500,
        a: ["client:1"],
        b: ["server:0", "server:1"],
        oneWay: false,
      },
      ...(jump ? [{ kind: "clock-jump" as const, node: "server:2", at: 250, deltaMs: 10_000 }] : []),
    ],
  );

const track = expectNothingLeftAfterEach(async (runId) => {
  if (env.available) expect(await dockerLeftovers(env.docker, runId)).toEqual([]);
});

describe.skipIf(skipDockerTests(env))("real redis targets on --cluster docker", () => {
  it("redis:lease, unfenced: a client paused longer than the TTL writes after the next holder (violation)", async () => {
    needDocker(env);
    const r = await runChecked(pauseAfterAcquire("redis:lease", "unfenced", 1, 500), onDocker);
    track(r.runId);
    expect(r.run.warnings).toEqual([]);
    expect(r.violations).toContain("stale-write");
  });

  it("redis:lease-token, fenced: the same schedule has no violation; the stale write is rejected", async () => {
    needDocker(env);
    const r = await runChecked(pauseAfterAcquire("redis:lease-token", "fenced", 1, 500), onDocker);
    track(r.runId);
    expect(r.run.warnings).toEqual([]);
    expect(r.violations).toEqual([]);
    expect(r.rejectedWrites.some((w) => w.process === 0)).toBe(true);
  });

  it("redis:redlock, unfenced: a client paused after acquiring breaks mutual exclusion", async () => {
    needDocker(env);
    const r = await runChecked(pauseAfterAcquire("redis:redlock", "unfenced", 5, 1000), onDocker);
    track(r.runId);
    expect(r.run.warnings).toEqual([]);
    expect(r.violations).toContain("stale-write");
  });

  it("redis:redlock: the clock-jump timeline is refused before anything starts, saying why", async () => {
    needDocker(env);
    await expect(runChecked(fiveNodeTimeline(true), onDocker)).rejects.toThrow(
      /faults\[2\]: clock-jump of server:2 cannot run with --cluster docker: containers share the host's clock/,
    );
  });

  it("redis:redlock, unfenced: the timeline without the jump has no violation (no majority for client 1 while 0 holds)", async () => {
    needDocker(env);
    const r = await runChecked(fiveNodeTimeline(false), onDocker);
    track(r.runId);
    expect(r.run.warnings).toEqual([]);
    expect(r.violations).toEqual([]);
    const ops = r.run.ops;
    const granted = (p: number) => ops.filter((o) => o.process === p && o.f === "acquire" && o.type === "ok");
    expect(granted(0)).toHaveLength(1);
    // Redlock retries for up to two TTLs: client 1 may get the lock, but only once client 0 released it.
    const released0 = ops.find((o) => o.process === 0 && o.f === "release" && o.type === "ok");
    for (const g of granted(1)) expect(g.index).toBeGreaterThan(released0!.index);
  });

  it("a server pause and a crash with restart are container faults recorded in the history", async () => {
    needDocker(env);
    const s = schedule(
      "redis:redlock",
      "unfenced",
      { servers: 5, ttlMs: 1000, callTimeoutMs: 200, horizonMs: 4000 },
      // Long enough that the run is still going when the crashed server is due back.
      [
        { id: 0, cycles: Array.from({ length: 12 }, () => ({ thinkMs: 100, holdMs: 200, writes: 1 })) },
        { id: 1, cycles: Array.from({ length: 12 }, () => ({ thinkMs: 150, holdMs: 200, writes: 1 })) },
      ],
      [
        { kind: "pause", node: "server:1", at: 200, durationMs: 800 },
        { kind: "crash", node: "server:3", at: 300, restartAfterMs: 700 },
      ],
    );
    const r = await runChecked(s, onDocker);
    track(r.runId);
    expect(r.run.warnings).toEqual([]);
    const nemesis = r.run.ops.filter((o) => o.process === "nemesis");
    expect(nemesis.map((o) => `${o.f} ${"node" in o ? o.node : ""}`)).toEqual(
      expect.arrayContaining(["pause server:1", "resume server:1", "crash server:3", "restart server:3"]),
    );
    const restart = nemesis.find((o) => o.f === "restart");
    expect(restart?.value).toEqual({ ref: "server:3" });
  });
});
