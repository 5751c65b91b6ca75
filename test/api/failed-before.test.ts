/**
 * `lockcheck run --schedule <folder>` of a run that failed: the plan says so, so that a rerun
 * on real servers that happens to pass is printed as "passed this time", not as a plain valid;
 * and how its partitions act (--partition-mode) is saved with it.
 */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { planRealRun } from "../../src/api/real-run-plan.js";
import type { Verdict } from "../../src/checkers/verdict.js";
import type { Schedule } from "../../src/schedule/schedule.js";
import { schedule as realSchedule } from "../real/helpers.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "lockcheck-failed-before-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** One client, one cycle on redis:lease: its content does not matter here, only where it lies. */
const schedule: Schedule = realSchedule(
  "redis:lease",
  "unfenced",
  { servers: 1, ttlMs: 500 },
  [{ id: 0, cycles: [{ thinkMs: 0, holdMs: 10, writes: 1 }] }],
  [],
);

const verdict = (valid: Verdict["valid"]): Verdict => ({
  checker: "stale-write",
  valid,
  anomalies: [],
  stats: {},
});

async function runFolder(name: string, verdicts: Verdict[] | null): Promise<string> {
  const folder = join(dir, name);
  await mkdir(folder, { recursive: true });
  await writeFile(join(folder, "schedule.json"), JSON.stringify(schedule));
  if (verdicts !== null) await writeFile(join(folder, "verdict.json"), JSON.stringify({ verdicts }));
  return folder;
}

async function failedBefore(schedulePath: string): Promise<string | null> {
  const plan = await planRealRun({ schedule: schedulePath, out: join(dir, "out") });
  if (!plan.ok) throw new Error(JSON.stringify(plan.error));
  return plan.value.failedBefore;
}

describe("RealRunPlan.failedBefore", () => {
  it("names the folder whose verdict.json has a failing verdict, given as the folder or its schedule.json", async () => {
    const folder = await runFolder("failed", [verdict(true), verdict(false)]);
    expect(await failedBefore(folder)).toBe(folder);
    expect(await failedBefore(join(folder, "schedule.json"))).toBe(folder);
  });

  it("is null for a run that passed, one without verdicts, or a schedule file outside a run folder", async () => {
    expect(await failedBefore(await runFolder("passed", [verdict(true), verdict("unknown")]))).toBeNull();
    expect(await failedBefore(await runFolder("no-verdict", null))).toBeNull();
    const loose = join(dir, "mine.json");
    await writeFile(loose, JSON.stringify(schedule));
    await writeFile(join(dir, "verdict.json"), JSON.stringify({ verdicts: [verdict(false)] }));
    expect(await failedBefore(loose)).toBeNull();
  });
});

describe("RealRunPlan: how partitions act", () => {
  const plan = async (name: string, saved: Schedule, ask: { partitionMode?: "cut" | "blackhole" }) => {
    const folder = join(dir, name);
    await mkdir(folder, { recursive: true });
    await writeFile(join(folder, "schedule.json"), JSON.stringify(saved));
    const p = await planRealRun({ schedule: folder, out: join(dir, `${name}-again`), ...ask });
    if (!p.ok) throw new Error(JSON.stringify(p.error));
    return p.value;
  };

  it("is saved in the schedule, so the plain command runs it again the same way", async () => {
    const asked = await plan("bh-asked", schedule, { partitionMode: "blackhole" });
    expect(asked.schedule.partitionMode).toBe("blackhole");
    expect(asked.rerunCommand).toBe(`lockcheck run --schedule ${join(dir, "bh-asked-again")}`);
    const kept = await plan("bh-saved", { ...schedule, partitionMode: "blackhole" }, {});
    expect(kept.schedule.partitionMode).toBe("blackhole");
  });

  it("--partition-mode overrides the schedule's; cut, the default, is left out", async () => {
    const cut = await plan("bh-cut", { ...schedule, partitionMode: "blackhole" }, { partitionMode: "cut" });
    expect("partitionMode" in cut.schedule).toBe(false);
    const plain = await plan("plain", schedule, {});
    expect("partitionMode" in plain.schedule).toBe(false);
  });
});

describe("RealRunPlan: the commands it prints", () => {
  it("run again and shrink where the servers ran: containers stay containers", async () => {
    const folder = await runFolder("commands", null);
    const local = await planRealRun({ schedule: folder, out: join(dir, "commands-local") });
    const docker = await planRealRun({
      schedule: folder,
      out: join(dir, "commands-docker"),
      placement: { cluster: "docker" },
    });
    const images = await planRealRun({
      schedule: folder,
      out: join(dir, "commands-images"),
      placement: {
        cluster: "docker",
        docker: { images: { redis: "mine/redis:7" }, composeFile: "my-compose.yml", log: () => {} },
      },
    });
    if (!local.ok || !docker.ok || !images.ok) throw new Error(JSON.stringify([local, docker, images]));
    expect(local.value.rerunCommand).toBe(`lockcheck run --schedule ${join(dir, "commands-local")}`);
    expect(local.value.shrinkCommand).toBe(`lockcheck shrink ${join(dir, "commands-local")}`);
    expect(docker.value.rerunCommand).toBe(
      `lockcheck run --schedule ${join(dir, "commands-docker")} --cluster docker`,
    );
    expect(docker.value.shrinkCommand).toBe(
      `lockcheck shrink ${join(dir, "commands-docker")} --cluster docker`,
    );
    // Images and Compose file given by flag are repeated: the run again is on the same servers.
    expect(images.value.rerunCommand).toBe(
      `lockcheck run --schedule ${join(dir, "commands-images")} --cluster docker --redis-image mine/redis:7 --compose my-compose.yml`,
    );
    expect(images.value.shrinkCommand).toBe(
      `lockcheck shrink ${join(dir, "commands-images")} --cluster docker --redis-image mine/redis:7 --compose my-compose.yml`,
    );
  });
});
