/**
 * After a real run: the writes whose clients gave up on them (`info`) that the resource applied
 * anyway (src/history/applied-writes.ts), read from the resource's own log. The Redis resource
 * appends each write's value to the lock's list and counts it in the same script
 * (adapters/resource.ts), so the n-th value of the list is the write it answered with seq n.
 * Read once the clients are gone and what they sent has arrived: a proxy still forwards the
 * bytes of a closed connection at their time (proxy/link-proxy.ts), so the read waits for the
 * resource's links to drain, at most as long as the schedule's longest delay.
 */
import { type AppliedSeq, markAppliedWrites, unresolvedWrites } from "../history/applied-writes.js";
import type { Op } from "../history/op.js";
import { err, ok, type Result } from "../result.js";
import type { Schedule } from "../schedule/schedule.js";
import { callWithDeadline, errorText } from "./adapters/call.js";
import { connectRedis } from "./adapters/redis.js";
import { RESOURCE_NODE, resourceKeys } from "./adapters/resource.js";
import type { RealWorld } from "./world.js";

/** How long the read may take: the resource answers at once unless a fault left it unwell. */
const READ_TIMEOUT_MS = 5000;

/** A little more than a loopback round trip: writes sent with no delay arrive within it. */
const ARRIVAL_SLACK_MS = 100;

/** Waits until the clients' links to the resource hold nothing back, or the longest delay has passed. */
async function resourceLinksDrained(world: RealWorld, schedule: Schedule): Promise<void> {
  const longestDelay = Math.max(
    0,
    ...schedule.faults.map((f) => (f.kind === "delay" || f.kind === "delay-at" ? f.extraMs : 0)),
  );
  const links = schedule.clients.flatMap((c) => world.link(c.id, "resource") ?? []);
  await Promise.all(links.map((l) => l.drained(longestDelay + ARRIVAL_SLACK_MS)));
}

/** Marks, in place, the `info` writes the resource applied; how many, or why it could not read. */
export async function markLateWrites(
  world: RealWorld,
  schedule: Schedule,
  ops: Op[],
): Promise<Result<number, string>> {
  // fenced-txn: the writes are etcd transactions, not values in this resource.
  if (world.resource === null) return ok(0);
  const unresolved = unresolvedWrites(ops);
  if (unresolved.length === 0) return ok(0);
  await resourceLinksDrained(world, schedule);
  const conn = connectRedis(world.resource.port);
  const locks = [...new Set(unresolved.map((u) => u.lock))];
  try {
    const read = await callWithDeadline(
      RESOURCE_NODE,
      READ_TIMEOUT_MS,
      async () => {
        await conn.connect();
        const logs = new Map<string, Map<string, bigint>>();
        for (const lock of locks) {
          const values = await conn.lrange(resourceKeys(lock).values, 0, -1);
          logs.set(lock, new Map(values.map((v, i) => [v, BigInt(i + 1)])));
        }
        return logs;
      },
      (e) => ({ kind: "timeout", node: RESOURCE_NODE, detail: errorText(e) }),
    );
    if (!read.ok)
      return err(
        `reading the resource's log for the writes clients gave up on: ${read.error.detail ?? `no answer in ${READ_TIMEOUT_MS} ms`}`,
      );
    const logs = read.value;
    const applied: AppliedSeq = (lock, value) =>
      typeof value === "string" ? logs.get(lock)?.get(value) : undefined;
    return ok(markAppliedWrites(ops, applied));
  } finally {
    conn.disconnect();
  }
}
