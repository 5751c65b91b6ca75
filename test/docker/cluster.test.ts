/**
 * Docker clusters against a real engine: start each shipped topology from local images,
 * check that every server answers on its published 127.0.0.1 port, apply each container
 * fault and watch its effect, and leave nothing behind.
 */
import { Redis } from "ioredis";
import { afterEach, describe, expect, it } from "vitest";
import { getJson, redisPing, sleep, waitUntil } from "../../src/real/cluster/net.js";
import { type DockerCluster, startDockerCluster } from "../../src/real/docker/cluster.js";
import { topologyFor } from "../../src/real/docker/topology.js";
import { dockerTestEnv, leftovers, needDocker, skipDockerTests, testRunId } from "./docker-env.js";

const env = await dockerTestEnv();

async function redisGet(port: number, key: string): Promise<string | null> {
  const r = new Redis({ port, host: "127.0.0.1", lazyConnect: true, maxRetriesPerRequest: 0 });
  try {
    await r.connect();
    return await r.get(key);
  } finally {
    r.disconnect();
  }
}

async function redisSet(port: number, key: string, value: string): Promise<void> {
  const r = new Redis({ port, host: "127.0.0.1", lazyConnect: true, maxRetriesPerRequest: 0 });
  try {
    await r.connect();
    await r.set(key, value);
  } finally {
    r.disconnect();
  }
}

async function etcdHealthy(port: number): Promise<boolean> {
  const body = (await getJson(`http://127.0.0.1:${port}/health`, 1000)) as { health?: string } | null;
  return body?.health === "true";
}

describe.skipIf(skipDockerTests(env))("docker clusters", () => {
  let cluster: DockerCluster | null = null;

  afterEach(async () => {
    if (cluster === null || !env.available) return;
    const stopped = await cluster.stop();
    expect(stopped).toEqual({ ok: true, value: undefined });
    expect(await leftovers(env.docker, cluster.runId)).toEqual([]);
    cluster = null;
  });

  it("redlock topology: five Redis servers and the resource answer; pause, crash and restart act on one", async () => {
    needDocker(env);
    const topology = topologyFor("redis", 5, { images: env.images });
    if (!topology.ok) throw new Error(topology.error.message);
    const runId = testRunId("redlock");
    const started = await startDockerCluster({ docker: env.docker, runId, topology: topology.value });
    if (!started.ok) throw new Error(started.error);
    cluster = started.value;

    expect(cluster.servers.map((s) => s.name)).toEqual([
      "server:0",
      "server:1",
      "server:2",
      "server:3",
      "server:4",
    ]);
    expect(cluster.resource.name).toBe("resource");
    const ports = [...cluster.servers, cluster.resource].map((n) => n.port);
    expect(new Set(ports).size).toBe(6);
    for (const port of ports) expect(await redisPing(port, 1000)).toBe(true);

    // Labels: every container names its run and node.
    const containers = await env.docker.listContainers({ filters: { label: [`lockcheck.run=${runId}`] } });
    expect(containers.map((c) => c.Labels["lockcheck.node"]).sort()).toEqual(
      ["resource", "server:0", "server:1", "server:2", "server:3", "server:4"].sort(),
    );
    expect(containers.every((c) => c.Labels.lockcheck === "1")).toBe(true);

    const s2 = cluster.servers[2]!;
    await s2.pause();
    expect(s2.isPaused()).toBe(true);
    expect(await redisPing(s2.port, 300)).toBe(false);
    expect(await redisPing(cluster.servers[1]!.port, 1000)).toBe(true);
    await s2.resume();
    expect(await redisPing(s2.port, 1000)).toBe(true);

    await redisSet(s2.port, "k", "v");
    expect(await redisGet(s2.port, "k")).toBe("v");
    await s2.crash();
    expect(s2.isDown()).toBe(true);
    expect(await redisPing(s2.port, 300)).toBe(false);
    const restarted = await s2.restart();
    expect(restarted).toEqual({ ok: true, value: undefined });
    expect(await redisGet(s2.port, "k")).toBeNull();
  });

  it("a paused container can be crashed, and teardown removes paused containers too", async () => {
    needDocker(env);
    const topology = topologyFor("redis", 1, { images: env.images });
    if (!topology.ok) throw new Error(topology.error.message);
    const started = await startDockerCluster({
      docker: env.docker,
      runId: testRunId("paused"),
      topology: topology.value,
    });
    if (!started.ok) throw new Error(started.error);
    cluster = started.value;
    const s0 = cluster.servers[0]!;
    await s0.pause();
    await s0.crash();
    expect(s0.isPaused()).toBe(false);
    expect(s0.isDown()).toBe(true);
    await cluster.resource.pause();
    // afterEach removes the paused resource and the crashed server and checks nothing is left.
  });

  it("etcd topology: three members elect a leader; an isolated leader is replaced and rejoins", async () => {
    needDocker(env);
    const topology = topologyFor("etcd", 3, { images: env.images });
    if (!topology.ok) throw new Error(topology.error.message);
    const started = await startDockerCluster({
      docker: env.docker,
      runId: testRunId("etcd"),
      topology: topology.value,
    });
    if (!started.ok) throw new Error(started.error);
    cluster = started.value;
    const c = cluster;
    for (const s of c.servers) expect(await etcdHealthy(s.port)).toBe(true);
    expect(await redisPing(c.resource.port, 1000)).toBe(true);

    const first = await c.leader(1000);
    expect(first).not.toBeNull();
    const old = c.servers[first!]!;
    await old.isolate();
    expect(old.isIsolated()).toBe(true);
    // The other two elect a new leader among themselves (election timeout 500 ms).
    let next: number | null = null;
    const elected = await waitUntil(
      async () => {
        const others = c.servers.filter((s) => s !== old);
        const leaders = await Promise.all(
          others.map(async (s) => {
            const st = (await getJson(`http://127.0.0.1:${s.port}/health`, 500)) as {
              health?: string;
            } | null;
            return st?.health === "true";
          }),
        );
        next = await c.leader(500);
        return leaders.every(Boolean) && next !== null && next !== first;
      },
      { timeoutMs: 15_000, intervalMs: 200 },
    );
    expect(elected).toBeNull();
    // Clients still reach the isolated member (it is cut off from its peers only), but it has no quorum.
    expect(await etcdHealthy(old.port)).toBe(false);
    expect(await getJson(`http://127.0.0.1:${old.port}/version`, 1000)).not.toBeNull();

    await old.rejoin();
    expect(old.isIsolated()).toBe(false);
    const healed = await waitUntil(() => etcdHealthy(old.port), { timeoutMs: 15_000, intervalMs: 200 });
    expect(healed).toBeNull();
  });

  it("an etcd member killed and restarted rejoins with its data", async () => {
    needDocker(env);
    const topology = topologyFor("etcd", 3, { images: env.images });
    if (!topology.ok) throw new Error(topology.error.message);
    const started = await startDockerCluster({
      docker: env.docker,
      runId: testRunId("etcdkill"),
      topology: topology.value,
    });
    if (!started.ok) throw new Error(started.error);
    cluster = started.value;
    const victim = cluster.servers[1]!;
    await victim.crash();
    expect(await etcdHealthy(victim.port)).toBe(false);
    await sleep(200);
    expect(await victim.restart(20_000)).toEqual({ ok: true, value: undefined });
    expect(await etcdHealthy(victim.port)).toBe(true);
  });
});
