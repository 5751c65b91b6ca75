/**
 * Clusters on loopback: five redis-servers (plus a durable resource) and a 3-member etcd
 * cluster start on free ports, answer, survive kill/restart as specified (a lock server
 * restarts empty, the resource keeps its data, an etcd member rejoins), and leave nothing
 * behind: no process, no temp dir.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { afterEach, describe, expect, it } from "vitest";
import { findBinary } from "../../src/real/cluster/binaries.js";
import { startEtcdCluster } from "../../src/real/cluster/etcd.js";
import { postJson, redisPing } from "../../src/real/cluster/net.js";
import { newRunId } from "../../src/real/run.js";
import { startWorld } from "../../src/real/world.js";
import { missingBinaries, processesMatching, tempDirsMatching, waitForNone } from "./helpers.js";

const missing = missingBinaries(["redis-server", "etcd"]);
const redisServer = findBinary("redis-server");
const etcd = findBinary("etcd");

let runId: string | null = null;
afterEach(async () => {
  if (runId === null) return;
  const id = runId;
  runId = null;
  expect(await waitForNone(() => processesMatching(id), 5000)).toEqual([]);
  expect(tempDirsMatching(id)).toEqual([]);
});

describe("binaries", () => {
  it("a missing binary is an error that says how to install it", () => {
    const r = findBinary("etcd", "/nonexistent/etcd");
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatch(/apt-get install etcd-server/);
    const s = findBinary("redis-server", "/nonexistent/redis-server");
    if (!s.ok) expect(s.error).toMatch(/apt-get install redis-server/);
    expect(s.ok).toBe(false);
  });
});

describe.skipIf(missing.length > 0)("real clusters", () => {
  it("five redis-servers and a durable resource: start, answer, crash/restart semantics, stop", async () => {
    runId = newRunId();
    const world = await startWorld({
      runId,
      servers: { kind: "redis", count: 5 },
      resource: "fenced",
      clientIds: [0],
      redisServerBinary: redisServer.ok ? redisServer.value : "",
      etcdBinary: null,
      clockShim: null,
      reaper: null,
    });
    if (!world.ok) throw new Error(world.error);
    try {
      const w = world.value;
      expect(w.redis.map((n) => n.name)).toEqual([
        "server:0",
        "server:1",
        "server:2",
        "server:3",
        "server:4",
      ]);
      expect(new Set(w.redis.map((n) => n.port)).size).toBe(5);
      for (const n of w.redis) expect(await redisPing(n.port, 1000)).toBe(true);
      expect(processesMatching(runId)).toHaveLength(6);

      const lockNode = new Redis({ port: w.redis[0]!.port, host: "127.0.0.1", lazyConnect: true });
      const resource = new Redis({ port: w.resource!.port, host: "127.0.0.1", lazyConnect: true });
      await lockNode.connect();
      await resource.connect();
      await lockNode.set("k", "v");
      await resource.set("k", "v");
      lockNode.disconnect();
      resource.disconnect();
      for (const n of [w.redis[0]!, w.resource!]) {
        await n.crash();
        expect(await redisPing(n.port, 300)).toBe(false);
        const back = await n.restart();
        expect(back.ok).toBe(true);
      }
      const lockAgain = new Redis({ port: w.redis[0]!.port, host: "127.0.0.1", lazyConnect: true });
      const resourceAgain = new Redis({ port: w.resource!.port, host: "127.0.0.1", lazyConnect: true });
      await lockAgain.connect();
      await resourceAgain.connect();
      expect(await lockAgain.get("k")).toBeNull(); // no persistence: restarts empty
      expect(await resourceAgain.get("k")).toBe("v"); // durable
      lockAgain.disconnect();
      resourceAgain.disconnect();
    } finally {
      await world.value.stop();
    }
  });

  it("a 3-member etcd cluster: start, a leader, a killed member restarts and rejoins, stop", async () => {
    runId = newRunId();
    const world = await startWorld({
      runId,
      servers: { kind: "etcd", count: 3 },
      resource: "fenced-txn",
      clientIds: [0],
      redisServerBinary: "",
      etcdBinary: etcd.ok ? etcd.value : "",
      clockShim: null,
      reaper: null,
    });
    if (!world.ok) throw new Error(world.error);
    try {
      const cluster = world.value.etcd!;
      expect(world.value.resource).toBeNull();
      const leader = await cluster.leader();
      expect(leader).not.toBeNull();
      expect(processesMatching(runId)).toHaveLength(3);
      const victim = cluster.members[(leader! + 1) % 3]!;
      await victim.crash();
      expect(processesMatching(runId)).toHaveLength(2);
      const back = await victim.restart();
      expect(back.ok).toBe(true);
      const status = (await postJson(
        `http://127.0.0.1:${victim.clientPort}/v3/maintenance/status`,
        {},
        2000,
      )) as {
        leader?: string;
      } | null;
      expect(status?.leader).toBeDefined();
      expect(status?.leader).not.toBe("0");
    } finally {
      await world.value.stop();
    }
  });

  it("a cluster that cannot start reports why and leaves nothing behind", async () => {
    runId = newRunId();
    const dir = mkdtempSync(join(tmpdir(), `lockcheck-${runId}-`));
    try {
      // `false` exits at once, as an etcd that cannot bind its ports would.
      const r = await startEtcdCluster({
        binary: "/bin/false",
        size: 3,
        dir,
        reaper: null,
        startTimeoutMs: 2000,
      });
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.error).toMatch(/exited during start-up/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
