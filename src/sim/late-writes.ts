/**
 * After a simulated run: the writes whose clients gave up on them (`info`) that the resource
 * applied anyway (src/history/applied-writes.ts). A write still on its way to the resource when
 * the last client finished is let arrive first — the world runs on, past the clients' end, until
 * the last message sent to the resource has arrived (faults keep happening meanwhile: a
 * partition may still drop it) — then each such `info` write gets its apply order `seq`.
 *
 * Only a run with such a write changes: with none outstanding the world stops where it did.
 */
import { markAppliedWrites, unresolvedWrites } from "../history/applied-writes.js";
import { runLoop } from "./scheduler.js";
import type { SimWorld } from "./world.js";

/** Arrival time of the last message sent to the resource (0 if none was). */
function lastArrivalAtResource(w: SimWorld): number {
  let last = 0;
  for (const links of w.net.links.values()) {
    const link = links.get(w.resourceNode.name);
    if (link !== undefined) last = Math.max(last, link.lastArrival);
  }
  return last;
}

export async function settleLateWrites(w: SimWorld, maxEvents: number): Promise<void> {
  // fenced-txn writes are transactions on the etcd-like cluster, not messages to this resource.
  if (w.schedule.resource === "fenced-txn") return;
  const unresolved = unresolvedWrites(w.history.ops);
  if (unresolved.length === 0) return;
  const applied = w.resource.applied;
  const until = lastArrivalAtResource(w);
  if (unresolved.some((u) => !applied.has(u.value)) && until > w.core.now) {
    await runLoop(w.core, { done: () => false, failure: () => undefined, endTime: until, maxEvents });
  }
  markAppliedWrites(w.history.ops, (_lock, value) => {
    const seq = applied.get(value);
    return seq === undefined ? undefined : BigInt(seq);
  });
}
