/**
 * The LD_PRELOAD clock shim on a real (jemalloc-built) redis-server: it starts (no deadlock),
 * TIME follows the offset the parent writes, and a forward jump expires keys early — the
 * mechanism behind the Redlock clock-jump timeline.
 */
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { findBinary } from "../../src/real/cluster/binaries.js";
import { type RedisNode, startRedisNode } from "../../src/real/cluster/redis.js";
import { ensureClockShim } from "../../src/real/shim/build.js";
import { testTempDir } from "../temp-dir.js";
import { missingBinaries } from "./helpers.js";

const missing = missingBinaries(["redis-server", "cc"]);
const dir = testTempDir("lockcheck-test-shim-");
let node: RedisNode | null = null;
afterAll(async () => {
  await node?.stop();
});

async function serverTimeMs(conn: Redis): Promise<number> {
  const [s, us] = (await conn.time()) as [string | number, string | number];
  return Number(s) * 1000 + Number(us) / 1000;
}

describe.skipIf(missing.length > 0)("clock shim", () => {
  it("builds once and is reused from the cache", () => {
    const a = ensureClockShim();
    const b = ensureClockShim();
    expect(a.ok && b.ok && a.value === b.value).toBe(true);
  });

  it("shifts a redis-server's wall clock and expires keys early on a forward jump", async () => {
    const shim = ensureClockShim();
    if (!shim.ok) throw new Error(shim.error);
    const binary = findBinary("redis-server");
    if (!binary.ok) throw new Error(binary.error);
    const started = await startRedisNode({
      name: "server:0",
      binary: binary.value,
      dir,
      clockShim: shim.value,
      reaper: null,
    });
    if (!started.ok) throw new Error(started.error);
    node = started.value;
    const conn = new Redis({ port: node.port, host: "127.0.0.1", lazyConnect: true });
    await conn.connect();
    try {
      const before = (await serverTimeMs(conn)) - Date.now();
      expect(Math.abs(before)).toBeLessThan(1000);
      await conn.set("k", "v", "PX", 60_000);
      node.clock!.jump(3_600_000);
      const after = (await serverTimeMs(conn)) - Date.now();
      expect(after - before).toBeGreaterThan(3_590_000);
      expect(await conn.get("k")).toBeNull();
      // And back: a backward jump makes a fresh key outlive its TTL in real time.
      node.clock!.jump(-3_600_000);
      expect(Math.abs((await serverTimeMs(conn)) - Date.now())).toBeLessThan(1000);
    } finally {
      conn.disconnect();
    }
  });
});
