/**
 * `lockcheck replay` and `lockcheck shrink` with `--cluster docker`: a counterexample found on
 * containers runs again and shrinks on containers, not on local processes (which a machine that
 * has only Docker lacks). Containers of the run are watched while it runs; none is left after.
 * An image that is not on the engine is an error value, not an exception.
 */
import { describe, expect, it } from "vitest";
import { shrinkFailing } from "../../src/api/shrink.js";
import { replaySchedule } from "../../src/runner/replay.js";
import { scheduleSize } from "../../src/runner/schedule-size.js";
import type { Schedule } from "../../src/schedule/schedule.js";
import { findTarget } from "../../src/targets/index.js";
import { pauseAfterAcquire } from "../real/schedules.js";
import {
  dockerTestEnv,
  needDocker,
  ourContainers,
  skipDockerTests,
  TEST_IMAGES,
  watchingContainers,
} from "./docker-env.js";

const env = await dockerTestEnv();

/** redis:lease, unfenced: the paused holder, plus a client and a fault shrinking drops. */
const failing: Schedule = (() => {
  const s = pauseAfterAcquire("redis:lease", "unfenced", 1, 500);
  return {
    ...s,
    clients: [...s.clients, { id: 2, cycles: [{ thinkMs: 900, holdMs: 50, writes: 1 }] }],
    faults: [...s.faults, { kind: "pause", node: "client:2", at: 20_000, durationMs: 100 }],
  };
})();

const redisLease = () => {
  const t = findTarget("redis:lease");
  if (!t.ok) throw new Error(t.error.message);
  return t.value;
};

describe.skipIf(skipDockerTests(env))("replay and shrink --cluster docker", () => {
  it("replay --twice: both runs on one set of containers show the stale write; none left", async () => {
    needDocker(env);
    const { value: r, most } = await watchingContainers(env.docker, () =>
      replaySchedule(failing, { cluster: "docker", docker: { images: TEST_IMAGES }, twice: true }),
    );
    if (!r.ok) throw new Error(r.error.message);
    expect(r.value.run.verdicts.find((v) => v.checker === "stale-write")?.valid).toBe(false);
    expect(most).toBe(2); // server:0 and the resource, started once for both runs
    expect(await ourContainers(env.docker)).toEqual([]);
  }, 180_000);

  it("shrink: smaller, confirmed on containers, and it fails there again; none left", async () => {
    needDocker(env);
    const { value: r, most } = await watchingContainers(env.docker, () =>
      shrinkFailing(redisLease(), failing, {
        maxRuns: 200,
        timeLimitMs: 60_000,
        runs: 2,
        marginMs: 50,
        simFirst: true,
        cluster: "docker",
        docker: { images: TEST_IMAGES },
      }),
    );
    expect(r.kind).toBe("shrunk");
    if (r.kind !== "shrunk") return;
    expect(most).toBeGreaterThanOrEqual(2);
    expect(scheduleSize(r.schedule).clients).toBeLessThan(scheduleSize(failing).clients);
    expect(r.schedule.faults.some((f) => "at" in f && f.at >= 20_000)).toBe(false);
    const again = await replaySchedule(r.schedule, { cluster: "docker", docker: { images: TEST_IMAGES } });
    if (!again.ok) throw new Error(again.error.message);
    expect(again.value.run.violation).toBe(true);
    expect(await ourContainers(env.docker)).toEqual([]);
  }, 240_000);

  it("an image not on the engine: replay's error and shrink's cannot-run say which", async () => {
    needDocker(env);
    const docker = { images: { ...TEST_IMAGES, redis: "lockcheck-local/no-such-image:none" } };
    const replayed = await replaySchedule(failing, { cluster: "docker", docker });
    expect(replayed.ok).toBe(false);
    if (!replayed.ok) expect(replayed.error.message).toContain("lockcheck-local/no-such-image:none");
    const shrunk = await shrinkFailing(redisLease(), failing, {
      maxRuns: 10,
      runs: 2,
      marginMs: 50,
      simFirst: true,
      cluster: "docker",
      docker,
    });
    expect(shrunk.kind).toBe("cannot-run");
    if (shrunk.kind === "cannot-run") expect(shrunk.reason).toContain("lockcheck-local/no-such-image:none");
    expect(await ourContainers(env.docker)).toEqual([]);
  }, 120_000);
});
