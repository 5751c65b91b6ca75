/**
 * The protected resource: a storage node that accepts writes, reached over the network
 * (node "resource"), so it can be partitioned, paused and delayed like any other.
 *
 * - `unfenced` accepts every write.
 * - `fenced` rejects a write whose token is lower than the highest token it has accepted for
 *   that lock; an equal token is accepted (one holder writes several times); a write without
 *   a token is rejected.
 * - `fenced-txn` is not served here: the write is a transaction on the etcd-like cluster (see
 *   servers/etcd.ts), so faults on the "resource" node do not affect it.
 *
 * Each accepted write is answered with its apply sequence number (history field `seq`), so
 * checkers know the order the resource applied writes in, not only what clients observed.
 *
 * The resource is durable storage: a crash makes it unreachable but it keeps what it
 * accepted (its highest token), or fencing would be meaningless after a restart.
 */
import type { ResourceWrite } from "../../env/env.js";

export interface ResourceNode {
  readonly fenced: boolean;
  /** Highest accepted token per lock. */
  readonly highest: Map<string, bigint>;
  /** Writes accepted so far (all locks). */
  accepted: number;
  /**
   * The apply order of each accepted write, by its value (the workload's values name their
   * grant, unique in a run): the resource's log, read when a client gave up on a write
   * (src/sim/late-writes.ts).
   */
  readonly applied: Map<unknown, number>;
}

export function createResourceNode(fenced: boolean): ResourceNode {
  return { fenced, highest: new Map(), accepted: 0, applied: new Map() };
}

/**
 * Applies a write: its apply sequence number (the count of writes accepted so far, this one
 * included: 1, 2, …) if accepted, or 0 if rejected.
 */
export function writeResource(r: ResourceNode, w: ResourceWrite): number {
  if (r.fenced) {
    if (w.token === null) return 0;
    const top = r.highest.get(w.lock);
    if (top !== undefined && w.token < top) return 0;
    r.highest.set(w.lock, w.token);
  }
  r.accepted++;
  r.applied.set(w.value, r.accepted);
  return r.accepted;
}
