/**
 * Deleting every key of reused servers between two runs (shared-world.ts and its docker twin
 * docker/shared-world.ts), so no run sees another's locks or resource values: Redis FLUSHALL
 * on each redis-server, and every key of the etcd cluster deleted once it has a leader.
 */
import { err, ok, type Result } from "../result.js";
import { connectEtcd } from "./adapters/etcd.js";
import { connectRedis } from "./adapters/redis.js";

export interface KeysToFlush {
  /** Ports of the redis-servers (lock servers and the resource), reached directly. */
  redisPorts: readonly number[];
  /** The etcd cluster's client ports and a wait for its leader, or null. */
  etcd: { ports: readonly number[]; leader(timeoutMs: number): Promise<unknown> } | null;
}

export async function flushKeys(servers: KeysToFlush): Promise<Result<void, string>> {
  try {
    await Promise.all(
      servers.redisPorts.map(async (port) => {
        const conn = connectRedis(port);
        try {
          await conn.connect();
          await conn.flushall();
        } finally {
          conn.disconnect();
        }
      }),
    );
    if (servers.etcd !== null) {
      await servers.etcd.leader(10_000);
      const client = connectEtcd([...servers.etcd.ports], 2000);
      try {
        await client.delete().all();
      } finally {
        client.close();
      }
    }
    return ok(undefined);
  } catch (e) {
    return err(`flushing the shared servers between runs: ${e instanceof Error ? e.message : String(e)}`);
  }
}
