/**
 * `lockcheck gate` with `cluster: "docker"` (or `--cluster docker`): the real targets and the
 * real corpus entries run on containers, simulated targets in the simulator as always, and the
 * replay commands the gate prints keep `--cluster docker`. `--cluster process` overrides the
 * config. Containers are watched while the gate runs; none is left after.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { gate } from "../../src/api/gate.js";
import type { CorpusResult, TargetResult } from "../../src/report/gate-result.js";
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
// Made by the first test that needs it: a file whose tests are skipped (no Docker) runs no hook to remove it.
let work: string | null = null;
afterAll(() => {
  if (work !== null) rmSync(work, { recursive: true, force: true });
});

// The gate takes its images from the environment, as `lockcheck gate --cluster docker` does.
const imagesBefore = { redis: process.env.LOCKCHECK_REDIS_IMAGE, etcd: process.env.LOCKCHECK_ETCD_IMAGE };
beforeAll(() => {
  process.env.LOCKCHECK_REDIS_IMAGE = TEST_IMAGES.redis;
  process.env.LOCKCHECK_ETCD_IMAGE = TEST_IMAGES.etcd;
});
afterAll(() => {
  for (const [name, value] of [
    ["LOCKCHECK_REDIS_IMAGE", imagesBefore.redis],
    ["LOCKCHECK_ETCD_IMAGE", imagesBefore.etcd],
  ] as const) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

/** A config in its own folder with one real corpus entry: the paused holder's stale write on redis:lease. */
function gateFolder(name: string, config: object): string {
  work ??= mkdtempSync(join(tmpdir(), "lockcheck-test-gate-docker-"));
  const dir = join(work, name);
  const entry = join(dir, "corpus", "paused-holder");
  mkdirSync(entry, { recursive: true });
  writeFileSync(
    join(entry, "schedule.json"),
    JSON.stringify(pauseAfterAcquire("redis:lease", "unfenced", 1, 500)),
  );
  writeFileSync(join(entry, "expected.json"), JSON.stringify({ verdicts: { "stale-write": false } }));
  writeFileSync(join(entry, "history.jsonl"), "");
  const file = join(dir, "lockcheck.config.json");
  writeFileSync(file, JSON.stringify({ corpus: ["corpus"], ...config }));
  return file;
}

const targetNamed = (results: readonly unknown[], name: string) =>
  (results as TargetResult[]).find((r) => r.kind === "target" && r.name === name);
const corpusEntry = (results: readonly unknown[]) =>
  (results as CorpusResult[]).find((r) => r.kind === "corpus");

describe.skipIf(skipDockerTests(env))("gate --cluster docker", () => {
  it("real targets and real corpus entries run on containers; their replay commands say so; none left", async () => {
    needDocker(env);
    const config = gateFolder("docker", {
      seed: 1,
      cluster: "docker",
      targets: [
        // Unfenced leases under pauses: a canary found within a few runs.
        { target: "redis:lease", expect: "unsafe", faults: ["pause"], runs: 6 },
        { target: "sim:lease", expect: "unsafe", runs: 500 },
      ],
    });
    const { value: report, seen } = await watchingContainers(env.docker, () => gate({ config }));
    if (!report.ok) throw new Error(JSON.stringify(report.error));
    // Containers are named lockcheck-<run>-<service>: the target's runs and the entry's replay each had theirs.
    const runs = new Set([...seen].map((name) => name.replace(/-(server-\d+|resource)$/, "")));
    expect(runs.size).toBeGreaterThanOrEqual(2);
    const real = targetNamed(report.value.results, "redis:lease");
    expect(real?.met).toBe(true);
    expect(real?.counterexample?.replay).toMatch(/ --cluster docker$/);
    const sim = targetNamed(report.value.results, "sim:lease");
    expect(sim?.met).toBe(true);
    expect(sim?.counterexample?.replay).not.toContain("--cluster");
    const entry = corpusEntry(report.value.results);
    expect(entry).toMatchObject({ met: true, actual: { "stale-write": false } });
    expect(entry?.replay).toMatch(/ --cluster docker$/);
    expect(await ourContainers(env.docker)).toEqual([]);
  }, 300_000);

  it("images given to gate (--redis-image) run the containers, and its replay commands repeat them", async () => {
    needDocker(env);
    // A tag of the test image that neither the environment nor a default names: only the flag can.
    const tag = `lockcheck-test/redis:gate-flag-${process.pid}`;
    const [repo, version] = tag.split(":") as [string, string];
    await env.docker.getImage(TEST_IMAGES.redis).tag({ repo, tag: version });
    delete process.env.LOCKCHECK_REDIS_IMAGE;
    try {
      const config = gateFolder("images", {
        seed: 1,
        cluster: "docker",
        targets: [{ target: "redis:lease", expect: "unsafe", faults: ["pause"], runs: 6 }],
      });
      const { value: report, images } = await watchingContainers(env.docker, () =>
        gate({ config, docker: { images: { redis: tag } } }),
      );
      if (!report.ok) throw new Error(JSON.stringify(report.error));
      expect([...images]).toEqual([tag]);
      const real = targetNamed(report.value.results, "redis:lease");
      expect(real?.met).toBe(true);
      expect(real?.counterexample?.replay).toMatch(new RegExp(` --cluster docker --redis-image ${tag}$`));
      const entry = corpusEntry(report.value.results);
      expect(entry).toMatchObject({ met: true, actual: { "stale-write": false } });
      expect(entry?.replay).toMatch(new RegExp(` --cluster docker --redis-image ${tag}$`));
      // The same images with the config's cluster process are refused, not ignored.
      const local = gateFolder("images-local", { targets: [] });
      const refused = await gate({ config: local, docker: { images: { redis: tag } } });
      expect(refused.ok).toBe(false);
    } finally {
      process.env.LOCKCHECK_REDIS_IMAGE = TEST_IMAGES.redis;
      await env.docker.getImage(tag).remove();
    }
    expect(await ourContainers(env.docker)).toEqual([]);
  }, 300_000);

  it("cluster process (the --cluster flag) overrides the config's docker: no container", async () => {
    needDocker(env);
    const config = gateFolder("process", { cluster: "docker", targets: [] });
    const { value: report, most } = await watchingContainers(env.docker, () =>
      gate({ config, cluster: "process" }),
    );
    if (!report.ok) throw new Error(JSON.stringify(report.error));
    expect(most).toBe(0);
    const entry = corpusEntry(report.value.results);
    expect(entry).toMatchObject({ met: true, actual: { "stale-write": false } });
    expect(entry?.replay).not.toContain("--cluster");
  }, 120_000);
});
