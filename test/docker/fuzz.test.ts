/**
 * `fuzz --cluster docker` on a real target: the same hunting runs with the servers in
 * containers (started per run: the docker world is not shared). A short fuzz of redis:lease
 * with pauses finds the stale write (each run's containers are removed by the docker world, as
 * test/docker/exit-paths.test.ts checks).
 */
import { describe, expect, it } from "vitest";
import { fuzz } from "../../src/runner/fuzz.js";
import { realTargetFor } from "../../src/targets/real.js";
import { dockerTestEnv, needDocker, skipDockerTests, TEST_IMAGES } from "./docker-env.js";

const env = await dockerTestEnv();

describe.skipIf(skipDockerTests(env))("fuzz --cluster docker", () => {
  it("a short fuzz of redis:lease with pauses on containers finds the stale write", async () => {
    needDocker(env);
    const r = await fuzz({
      target: realTargetFor("redis:lease")!,
      resource: "unfenced",
      seed: 11,
      runs: 6,
      faults: ["pause"],
      options: { horizonMs: 5000 },
      shrink: false,
      real: { cluster: "docker", docker: { images: TEST_IMAGES } },
    });
    expect(r.error).toBeNull();
    expect(r.counterexample, `no violation in ${r.runs} runs`).not.toBeNull();
    expect(r.counterexample!.verdicts.some((v) => v.valid === false)).toBe(true);
  }, 240_000);
});
