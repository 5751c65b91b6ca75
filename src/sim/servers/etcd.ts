/**
 * The etcd-like cluster: a key-value store with a global revision, leases and the few
 * transactions lock recipes use, replicated by the consensus core (raft.ts) over
 * `options.servers` members (normally 3).
 *
 * - The revision (BigInt) increases by one with every transaction that changes a key; a
 *   key's create revision is the revision of the transaction that created it — the fencing
 *   token of etcd locks.
 * - Leases are granted with the TTL asked for (real etcd rounds up to whole seconds and has a
 *   minimum), kept alive by clients (keep-alives are answered by the leader outside the
 *   log, as in etcd: see raft.ts) and expired by the leader by its monotonic clock; keys
 *   attached to a lease are deleted (in one transaction) when it expires or is revoked.
 * - The leader expires a lease `REVOKE_LAG_MS` after its deadline: etcd's lessor looks for
 *   expired leases every 500 ms, so a lease there ends anywhere up to 500 ms after its TTL ran
 *   out, and this takes the latest. A run that fails here because a lease ended then fails on
 *   a real etcd too, where it has ended by then whatever the phase of the lessor's loop; with
 *   the TTL alone, a holder frozen for just over its TTL failed here and not on etcd. (A world
 *   may ask for the earliest instead, `EtcdLeaseEnd`: shrinking a failure seen on a real etcd
 *   tries that twin when this one does not fail, see shrink-real.ts.)
 * - `put-if-create-revision` is the `fenced-txn` resource: a write to the resource key that
 *   succeeds only while the lock key's create revision still equals the writer's token.
 */
import type { EtcdKeyInfo } from "../../env/env.js";
import type { Network } from "../network.js";
import type { SimNode } from "../node.js";
import { mapPacked } from "../packed.js";
import type { RandomStreams } from "../rng.js";
import { type Cluster, type ConsensusTimings, createCluster, type StateMachineSpec } from "./raft.js";

export type { ConsensusTimings } from "./raft.js";

export type EtcdCmd =
  | { op: "lease-grant"; ttlMs: number }
  | { op: "lease-keepalive"; leaseId: string }
  | { op: "lease-revoke"; leaseId: string }
  | { op: "lease-expire"; leaseId: string }
  | { op: "create-if-absent"; key: string; value: string; leaseId: string }
  | { op: "get"; key: string }
  | { op: "delete-if-create-revision"; key: string; createRevision: bigint }
  | { op: "put-if-create-revision"; guardKey: string; createRevision: bigint; key: string; value: string };

export type EtcdRes =
  | { op: "lease-grant"; leaseId: string; ttlMs: number }
  | { op: "lease-keepalive"; leaseId: string; ttlMs: number }
  | { op: "lease-revoke"; leaseId: string; found: boolean }
  | { op: "lease-expire"; leaseId: string }
  | { op: "create-if-absent"; leaseFound: boolean; created: boolean; createRevision: bigint }
  | { op: "get"; info: EtcdKeyInfo | null }
  | { op: "delete-if-create-revision"; deleted: boolean }
  | { op: "put-if-create-revision"; written: boolean; revision: bigint };

interface Lease {
  ttlMs: number;
  keys: Set<string>;
}

export interface EtcdState {
  revision: bigint;
  readonly kv: Map<string, EtcdKeyInfo>;
  readonly leases: Map<string, Lease>;
  nextLeaseId: number;
}

function put(s: EtcdState, key: string, value: string, leaseId: string | null): EtcdKeyInfo {
  s.revision++;
  const existing = s.kv.get(key);
  const info: EtcdKeyInfo = {
    value,
    createRevision: existing?.createRevision ?? s.revision,
    modRevision: s.revision,
    leaseId,
  };
  s.kv.set(key, info);
  if (leaseId !== null) s.leases.get(leaseId)?.keys.add(key);
  return info;
}

function removeKey(s: EtcdState, key: string): void {
  const info = s.kv.get(key);
  if (info === undefined) return;
  s.kv.delete(key);
  if (info.leaseId !== null) s.leases.get(info.leaseId)?.keys.delete(key);
}

/** Deletes a lease and, in one transaction, the keys attached to it. */
function dropLease(s: EtcdState, leaseId: string): boolean {
  const lease = s.leases.get(leaseId);
  if (lease === undefined) return false;
  s.leases.delete(leaseId);
  if (lease.keys.size > 0) {
    s.revision++;
    for (const key of lease.keys) s.kv.delete(key);
  }
  return true;
}

export function applyEtcd(s: EtcdState, cmd: EtcdCmd): EtcdRes {
  switch (cmd.op) {
    case "lease-grant": {
      const leaseId = String(s.nextLeaseId++);
      s.leases.set(leaseId, { ttlMs: cmd.ttlMs, keys: new Set() });
      return { op: cmd.op, leaseId, ttlMs: cmd.ttlMs };
    }
    case "lease-keepalive":
      return { op: cmd.op, leaseId: cmd.leaseId, ttlMs: s.leases.get(cmd.leaseId)?.ttlMs ?? 0 };
    case "lease-revoke":
      return { op: cmd.op, leaseId: cmd.leaseId, found: dropLease(s, cmd.leaseId) };
    case "lease-expire":
      dropLease(s, cmd.leaseId);
      return { op: cmd.op, leaseId: cmd.leaseId };
    case "create-if-absent": {
      const existing = s.kv.get(cmd.key);
      if (existing !== undefined) {
        return { op: cmd.op, leaseFound: true, created: false, createRevision: existing.createRevision };
      }
      if (!s.leases.has(cmd.leaseId))
        return { op: cmd.op, leaseFound: false, created: false, createRevision: 0n };
      const info = put(s, cmd.key, cmd.value, cmd.leaseId);
      return { op: cmd.op, leaseFound: true, created: true, createRevision: info.createRevision };
    }
    case "get": {
      const info = s.kv.get(cmd.key);
      return { op: cmd.op, info: info === undefined ? null : { ...info } };
    }
    case "delete-if-create-revision": {
      const info = s.kv.get(cmd.key);
      if (info === undefined || info.createRevision !== cmd.createRevision)
        return { op: cmd.op, deleted: false };
      s.revision++;
      removeKey(s, cmd.key);
      return { op: cmd.op, deleted: true };
    }
    case "put-if-create-revision": {
      const guard = s.kv.get(cmd.guardKey);
      if (guard === undefined || guard.createRevision !== cmd.createRevision)
        return { op: cmd.op, written: false, revision: s.revision };
      put(s, cmd.key, cmd.value, null);
      // The txn's revision is the write's apply order (history field `seq`).
      return { op: cmd.op, written: true, revision: s.revision };
    }
  }
}

/** A watch condition: the version of `key` created at `createRevision` no longer exists. */
export function deletedSince(key: string, createRevision: bigint): (s: EtcdState) => boolean {
  // A member that has not applied the creation yet waits for it, as an etcd watch from a
  // revision the member has not reached does: the key is not gone, it is not there yet.
  return (s) => s.revision >= createRevision && s.kv.get(key)?.createRevision !== createRevision;
}

/** How long after its deadline the leader expires a lease (see the top). */
export const REVOKE_LAG_MS = 500;

/** When a lease whose TTL ran out ends: as late as a real etcd may end it, or as soon. */
export type EtcdLeaseEnd = "latest" | "earliest";

const etcdSpec = (lagMs: number): StateMachineSpec<EtcdCmd, EtcdRes, EtcdState> => ({
  init: () => ({ revision: 1n, kv: new Map(), leases: new Map(), nextLeaseId: 1 }),
  apply: applyEtcd,
  leases: (s) => mapPacked([...s.leases], ([id, l]) => [id, l.ttlMs + lagMs] as const),
  leaseEvent(res) {
    switch (res.op) {
      case "lease-grant":
        return "refresh";
      case "lease-keepalive":
        return res.ttlMs > 0 ? "refresh" : null;
      case "lease-revoke":
      case "lease-expire":
        return "gone";
      default:
        return null;
    }
  },
  leaseId: (res) => ("leaseId" in res ? res.leaseId : ""),
  leaseLifeMs: (res) => ("ttlMs" in res ? res.ttlMs + lagMs : 0),
  expire: (leaseId) => ({ op: "lease-expire", leaseId }),
  isRenewal: (cmd) => cmd.op === "lease-keepalive",
  isReadOnly: (cmd) => cmd.op === "get" || cmd.op === "lease-keepalive",
  // etcd's reads are linearizable by default (a quorum round before answering).
  isLocalRead: () => false,
});

// Made once each: every cluster of a kind calls the same functions.
const SPECS: Record<EtcdLeaseEnd, StateMachineSpec<EtcdCmd, EtcdRes, EtcdState>> = {
  latest: etcdSpec(REVOKE_LAG_MS),
  earliest: etcdSpec(0),
};

export interface EtcdCluster {
  readonly cluster: Cluster<EtcdCmd, EtcdRes, EtcdState>;
}

export function createEtcdCluster(
  net: Network,
  nodes: readonly SimNode[],
  streams: RandomStreams,
  timings: ConsensusTimings,
  leaseEnd: EtcdLeaseEnd,
): EtcdCluster {
  // etcd members forward a client's request to the leader (raft.ts).
  return { cluster: createCluster(net, nodes, streams, timings, SPECS[leaseEnd], "forward") };
}
