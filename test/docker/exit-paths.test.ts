/**
 * However lockcheck ends, the containers and networks of its docker runs go with it: a
 * process holding a docker cluster (with a paused container) is interrupted, terminated,
 * crashed by an uncaught error and SIGKILLed, and one holding a fuzz session's shared
 * containers is terminated; afterwards nothing labelled with its run is left. Then `lockcheck clean` removes exactly lockcheck's leftovers: not other containers,
 * not those of a lockcheck process that is still running.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { hostname } from "node:os";
import { describe, expect, it } from "vitest";
import { runClean } from "../../src/cli/commands/clean.js";
import { waitUntil } from "../../src/real/cluster/net.js";
import {
  LABEL_LOCKCHECK,
  LABEL_NODE,
  LABEL_OWNER,
  LABEL_RUN,
  runLabels,
} from "../../src/real/docker/labels.js";
import { nodeCommand } from "../../src/real/hygiene/processes.js";
import { tempDirsMatching, waitForNone } from "../real/helpers.js";
import {
  dockerTestEnv,
  leftovers,
  needDocker,
  skipDockerTests,
  TEST_IMAGES,
  testRunId,
} from "./docker-env.js";

const env = await dockerTestEnv();
const FIXTURE = new URL("./fixtures/hold-cluster.ts", import.meta.url);
const SESSION_FIXTURE = new URL("./fixtures/hold-session.ts", import.meta.url);

async function startHolder(runId: string, mode: "wait" | "throw"): Promise<ChildProcess> {
  const { command, args } = nodeCommand(FIXTURE);
  const child = spawn(command, [...args, runId, mode], { stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let errText = "";
  child.stderr!.on("data", (d: Buffer) => {
    errText += d.toString();
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      if (out.includes("up\n")) resolve();
    });
    child.once("exit", (code) => reject(new Error(`fixture exited with ${code} before "up": ${errText}`)));
  });
  return child;
}

async function exitOf(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (child.exitCode !== null || child.signalCode !== null)
    return { code: child.exitCode, signal: child.signalCode };
  const [code, signal] = (await once(child, "exit")) as [number | null, NodeJS.Signals | null];
  return { code, signal };
}

describe.skipIf(skipDockerTests(env))("docker cleanup on every exit path", () => {
  for (const sig of ["SIGINT", "SIGTERM"] as const) {
    it(`${sig}: the run's containers (one paused) and networks are gone when the process is`, async () => {
      needDocker(env);
      const runId = testRunId(sig.toLowerCase());
      const child = await startHolder(runId, "wait");
      expect((await leftovers(env.docker, runId)).length).toBe(4); // 2 containers + 2 networks
      child.kill(sig);
      const exit = await exitOf(child);
      expect(exit.code).toBe(sig === "SIGINT" ? 130 : 143);
      expect(await leftovers(env.docker, runId)).toEqual([]);
    });
  }

  it("SIGTERM during a fuzz session: its shared containers (one paused) and networks are gone", async () => {
    needDocker(env);
    const { command, args } = nodeCommand(SESSION_FIXTURE);
    const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let errText = "";
    child.stderr!.on("data", (d: Buffer) => {
      errText += d.toString();
    });
    const sessionId = await new Promise<string>((resolve, reject) => {
      child.stdout!.on("data", (d: Buffer) => {
        out += d.toString();
        const m = out.match(/up (\S+)\n/);
        if (m !== null) resolve(m[1]!);
      });
      child.once("exit", (code) => reject(new Error(`fixture exited with ${code} before "up": ${errText}`)));
    });
    expect((await leftovers(env.docker, sessionId)).length).toBe(4); // 2 containers + 2 networks
    child.kill("SIGTERM");
    expect((await exitOf(child)).code).toBe(143);
    expect(await leftovers(env.docker, sessionId)).toEqual([]);
    expect(await waitForNone(() => tempDirsMatching(sessionId), 2000)).toEqual([]);
  });

  it("an uncaught error: removed before the process exits", async () => {
    needDocker(env);
    const runId = testRunId("throw");
    const child = await startHolder(runId, "throw");
    const exit = await exitOf(child);
    expect(exit.code).toBe(1);
    expect(await leftovers(env.docker, runId)).toEqual([]);
  });

  it("SIGKILL: the watcher notices and removes them", async () => {
    needDocker(env);
    const runId = testRunId("sigkill");
    const child = await startHolder(runId, "wait");
    child.kill("SIGKILL");
    await exitOf(child);
    const gone = await waitUntil(async () => (await leftovers(env.docker, runId)).length === 0, {
      timeoutMs: 45_000,
      intervalMs: 250,
    });
    expect(gone).toBeNull();
  });
});

describe.skipIf(skipDockerTests(env))("lockcheck clean", () => {
  it("removes lockcheck's leftovers of dead runs only: not other containers, not running runs", async () => {
    needDocker(env);
    const docker = env.docker;
    const deadRun = testRunId("dead");
    const liveRun = testRunId("live");
    // A leftover of a lockcheck process that is gone (its owner label names no live process).
    const deadLabels = { ...runLabels(deadRun), [LABEL_OWNER]: `${hostname()}/999999999/0` };
    const make = (name: string, labels: Record<string, string>) =>
      docker.createContainer({
        name,
        Image: TEST_IMAGES.redis,
        Labels: labels,
        HostConfig: { NetworkMode: "none" },
      });
    const dead = await make(`lockcheck-${deadRun}-c`, { ...deadLabels, [LABEL_NODE]: "server:0" });
    await dead.start();
    await dead.pause();
    const deadNet = await docker.createNetwork({ Name: `lockcheck-${deadRun}-n`, Labels: deadLabels });
    const live = await make(`lockcheck-${liveRun}-c`, runLabels(liveRun));
    // Someone else's container, even with a similar name and a lockcheck.run label but not lockcheck=1.
    const foreign = await make(`lockcheck-${deadRun}-foreign`, { [LABEL_RUN]: deadRun });
    try {
      const lines: string[] = [];
      expect(
        await runClean(
          { dryRun: true },
          (l) => lines.push(l),
          () => {},
        ),
      ).toBe(0);
      expect(lines).toContain(`would remove container lockcheck-${deadRun}-c (server:0), run ${deadRun}`);
      expect(lines).toContain(`would keep container lockcheck-${liveRun}-c, run ${liveRun}, still running`);
      expect((await leftovers(docker, deadRun)).length).toBe(3); // dry run removed nothing

      const out: string[] = [];
      const errs: string[] = [];
      expect(
        await runClean(
          {},
          (l) => out.push(l),
          (l) => errs.push(l),
        ),
      ).toBe(0);
      expect(errs).toEqual([]);
      expect(out).toContain(`removed container lockcheck-${deadRun}-c (server:0), run ${deadRun}`);
      expect(out).toContain(`removed network lockcheck-${deadRun}-n, run ${deadRun}`);
      expect(await leftovers(docker, deadRun)).toEqual([`/lockcheck-${deadRun}-foreign`]);
      expect(await leftovers(docker, liveRun)).toEqual([`/lockcheck-${liveRun}-c`]);

      const forced: string[] = [];
      expect(
        await runClean(
          { run: liveRun, includeRunning: true },
          (l) => forced.push(l),
          () => {},
        ),
      ).toBe(0);
      expect(forced.at(-1)).toBe("removed 1 container(s) and 0 network(s)");
      expect(await leftovers(docker, liveRun)).toEqual([]);
      const stillForeign = await foreign.inspect();
      expect(stillForeign.Config.Labels[LABEL_LOCKCHECK]).toBeUndefined();
    } finally {
      await foreign.remove({ force: true });
      await live.remove({ force: true }).catch(() => {});
      await dead.remove({ force: true }).catch(() => {});
      await deadNet.remove().catch(() => {});
    }
  });
});

describe("lockcheck clean --help", () => {
  it("lists its options and says it touches only labelled objects", async () => {
    const { command, args } = nodeCommand(new URL("../../src/cli/main.ts", import.meta.url));
    const child = spawn(command, [...args, "clean", "--help"], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
    });
    expect((await exitOf(child)).code).toBe(0);
    const text = out.replace(/\s+/g, " ");
    expect(text).toContain("(labelled lockcheck=1), nothing else");
    expect(text).toContain("--include-running also those of lockcheck processes that are still running");
    expect(text).toContain("--dry-run list what would be removed");
  });
});
