/**
 * `fuzz --cluster docker` on a real target: the same hunting runs with the servers in
 * containers, started once per session and reused by every run (src/real/docker/shared-world.ts).
 * A short fuzz of redis:lease with pauses finds the stale write. A session keeps the same
 * containers across runs and puts them back as new between runs (keys flushed, a crashed
 * container started again, a paused one unpaused); after the session no container or network
 * of it is left.
 */
import type Docker from "dockerode";
import { describe, expect, it } from "vitest";
import type { ClientOp } from "../../src/history/op.js";
import { LABEL_OWNER, ownerLabel } from "../../src/real/docker/labels.js";
import type { Schedule } from "../../src/schedule/schedule.js";
import { realTargetFor } from "../../src/targets/real.js";
import type { TargetSession } from "../../src/targets/target.js";
import { holdAndTry, schedule } from "../real/helpers.js";
import { shortFuzz } from "../real/run-helpers.js";
import { dockerTestEnv, needDocker, skipDockerTests, TEST_IMAGES } from "./docker-env.js";

const env = await dockerTestEnv();

const outcome = (ops: readonly unknown[], p: number, f: string) =>
  (ops as ClientOp[]).find((o) => o.process === p && o.f === f && o.type !== "invoke")?.type;

/** This test process's lockcheck containers (id and state) and networks. */
async function ours(
  docker: Docker,
): Promise<{ containers: { id: string; state: string }[]; networks: string[] }> {
  const filters = { label: [`${LABEL_OWNER}=${ownerLabel(process.pid)}`] };
  const containers = await docker.listContainers({ all: true, filters });
  const networks = await docker.listNetworks({ filters });
  return {
    containers: containers
      .map((c) => ({ id: c.Id, state: c.State }))
      .sort((a, b) => a.id.localeCompare(b.id)),
    networks: networks.map((n) => n.Name).sort(),
  };
}

describe.skipIf(skipDockerTests(env))("fuzz --cluster docker", () => {
  it("a short fuzz of redis:lease with pauses on containers finds the stale write", async () => {
    needDocker(env);
    const r = await shortFuzz(realTargetFor("redis:lease")!, {
      real: { cluster: "docker", docker: { images: TEST_IMAGES } },
    });
    expect(r.error).toBeNull();
    expect(r.counterexample, `no violation in ${r.runs} runs`).not.toBeNull();
    expect(r.counterexample!.verdicts.some((v) => v.valid === false)).toBe(true);
    expect((await ours(env.docker)).containers).toEqual([]);
  }, 240_000);

  it("a session reuses its containers and resets them between runs (keys, crashes, pauses)", async () => {
    needDocker(env);
    const before = await ours(env.docker);
    expect(before.containers).toEqual([]);
    const session: TargetSession = await realTargetFor("redis:lease")!.openSession!({
      resource: "unfenced",
      cluster: "docker",
      docker: { images: TEST_IMAGES },
    });
    let started: Awaited<ReturnType<typeof ours>> = { containers: [], networks: [] };
    try {
      started = await ours(env.docker);
      expect(started.containers).toHaveLength(2); // server:0 and the resource
      expect(started.networks).toHaveLength(2); // access and peers
      const pids = session.serverPids();
      expect(pids).toHaveLength(2);
      // Run 1: client 0 holds the 5 s lease and is crashed: the key would outlive the run.
      const first = await session.run(
        holdAndTry([{ kind: "crash", node: "client:0", at: 100, restartAfterMs: null }]),
      );
      expect(outcome(first.ops, 0, "acquire")).toBe("ok");
      expect(outcome(first.ops, 1, "acquire")).not.toBe("ok");
      // Run 2: flushed, so client 0 gets the lock again; server:0's container is killed for
      // good meanwhile, and the resource's paused past the end of the run.
      const second = await session.run(
        holdAndTry([
          { kind: "crash", node: "server:0", at: 600, restartAfterMs: null },
          { kind: "pause", node: "resource", at: 700, durationMs: 60_000 },
        ]),
      );
      expect(outcome(second.ops, 0, "acquire")).toBe("ok");
      // Run 3: server:0 was started again and the resource unpaused: a normal run.
      const third = await session.run(holdAndTry([]));
      expect(outcome(third.ops, 0, "acquire")).toBe("ok");
      expect(outcome(third.ops, 0, "write")).toBe("ok");
      // The same containers throughout, all running; the resource's server never restarted.
      const after = await ours(env.docker);
      expect(after.containers.map((c) => c.id)).toEqual(started.containers.map((c) => c.id));
      expect(after.containers.map((c) => c.state)).toEqual(["running", "running"]);
      expect(after.networks).toEqual(started.networks);
      expect(session.serverPids()[1]).toBe(pids[1]);
    } finally {
      await session.close();
    }
    expect(started.containers).toHaveLength(2);
    expect(await ours(env.docker)).toEqual({ containers: [], networks: [] });
  }, 240_000);

  it("an etcd session rejoins an isolated member and restarts a killed one between runs", async () => {
    needDocker(env);
    // The client starts late enough for both faults of run 1 to be in place by then.
    const etcdRun = (faults: Schedule["faults"]): Schedule =>
      schedule(
        "etcd:lock",
        "fenced",
        { servers: 3, ttlMs: 1000, callTimeoutMs: 1000, horizonMs: 4000 },
        [{ id: 0, cycles: [{ thinkMs: 1500, holdMs: 200, writes: 1 }] }],
        faults,
      );
    const session = await realTargetFor("etcd:lock")!.openSession!({
      resource: "fenced",
      cluster: "docker",
      docker: { images: TEST_IMAGES },
    });
    try {
      const ids = (await ours(env.docker)).containers.map((c) => c.id);
      expect(ids).toHaveLength(4); // three members and the resource
      // Run 1: server:0 cut off from its peers and server:1 killed, both past the end of the
      // run: no quorum is left when it ends.
      const first = await session.run(
        etcdRun([
          {
            kind: "partition",
            at: 600,
            durationMs: 60_000,
            a: ["server:0"],
            b: ["server:1", "server:2"],
            oneWay: false,
          },
          { kind: "crash", node: "server:1", at: 100, restartAfterMs: null },
        ]),
      );
      const nemesis = first.ops.filter((o) => o.process === "nemesis").map((o) => (o as { f: string }).f);
      expect(nemesis).toEqual(expect.arrayContaining(["partition", "crash"]));
      // Run 2: the cluster is whole again, on the same containers.
      const second = await session.run(etcdRun([]));
      expect(outcome(second.ops, 0, "acquire")).toBe("ok");
      expect(outcome(second.ops, 0, "write")).toBe("ok");
      const now = await ours(env.docker);
      expect(now.containers.map((c) => c.id)).toEqual(ids);
      expect(now.containers.every((c) => c.state === "running")).toBe(true);
      for (const id of ids) {
        const info = await env.docker.getContainer(id).inspect();
        expect(Object.keys(info.NetworkSettings.Networks).sort()).toEqual(now.networks);
      }
    } finally {
      await session.close();
    }
    expect(await ours(env.docker)).toEqual({ containers: [], networks: [] });
  }, 240_000);

  it("fuzz --cluster docker starts the containers once for all its runs", async () => {
    needDocker(env);
    const t = realTargetFor("redis:lease")!;
    const session = await t.openSession!({
      resource: "fenced",
      cluster: "docker",
      docker: { images: TEST_IMAGES },
    });
    try {
      const ids = (await ours(env.docker)).containers.map((c) => c.id);
      const pids = session.serverPids();
      for (let i = 0; i < 3; i++) await session.run({ ...holdAndTry([]), resource: "fenced" });
      expect((await ours(env.docker)).containers.map((c) => c.id)).toEqual(ids);
      expect(session.serverPids()).toEqual(pids);
    } finally {
      await session.close();
    }
    expect((await ours(env.docker)).containers).toEqual([]);
  }, 240_000);
});
