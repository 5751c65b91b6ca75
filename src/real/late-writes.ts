/**
 * After a real run: the writes whose clients gave up on them (`info`) that the resource applied
 * anyway (src/history/applied-writes.ts), read from the resource's own log. The Redis resource
 * appends each write's value to the lock's list and counts it in the same script
 * (adapters/resource.ts), so the n-th value of the list is the write it answered with seq n.
 * Read once the clients are gone: a write a proxy still held for a delay fault died with its
 * client's connection, and never reached the resource.
 */
import { type AppliedSeq, markAppliedWrites, unresolvedWrites } from "../history/applied-writes.js";
import type { Op } from "../history/op.js";
import { err, ok, type Result } from "../result.js";
import { connectRedis } from "./adapters/redis.js";
import { resourceKeys } from "./adapters/resource.js";
import type { RealWorld } from "./world.js";

/** How long the read may take: the resource answers at once unless a fault left it unwell. */
const READ_TIMEOUT_MS = 5000;

/** Marks, in place, the `info` writes the resource applied; how many, or why it could not read. */
export async function markLateWrites(world: RealWorld, ops: Op[]): Promise<Result<number, string>> {
  // fenced-txn: the writes are etcd transactions, not values in this resource.
  if (world.resource === null) return ok(0);
  const unresolved = unresolvedWrites(ops);
  if (unresolved.length === 0) return ok(0);
  const conn = connectRedis(world.resource.port);
  try {
    const logs = new Map<string, Map<string, bigint>>();
    const read = (async () => {
      await conn.connect();
      for (const lock of new Set(unresolved.map((u) => u.lock))) {
        const values = await conn.lrange(resourceKeys(lock).values, 0, -1);
        logs.set(lock, new Map(values.map((v, i) => [v, BigInt(i + 1)])));
      }
    })();
    read.catch(() => {}); // if the timeout wins, its failure is reported, not this one's
    const timeout = new Promise<never>((_, reject) => {
      setTimeout(() => reject(new Error(`no answer in ${READ_TIMEOUT_MS} ms`)), READ_TIMEOUT_MS).unref();
    });
    await Promise.race([read, timeout]);
    const applied: AppliedSeq = (lock, value) =>
      typeof value === "string" ? logs.get(lock)?.get(value) : undefined;
    return ok(markAppliedWrites(ops, applied));
  } catch (e) {
    return err(
      `reading the resource's log for the writes clients gave up on: ${e instanceof Error ? e.message : String(e)}`,
    );
  } finally {
    conn.disconnect();
  }
}
