/**
 * The ZooKeeper-like ensemble, on the same consensus core as the etcd-like cluster:
 * sessions with a timeout, expired by the leader by its monotonic clock (heartbeats renew
 * them); ephemeral sequential nodes `<prefix>-<seq>` owned by a session and deleted when it
 * expires or closes; a zxid (BigInt) that increases with every transaction that changes
 * the tree or the sessions. Reads (children) are answered by the leader from its applied
 * state without a quorum round, as a ZooKeeper server answers them (see raft.ts: possibly
 * stale on a deposed leader; the lock recipe is safe with stale listings, since a node that
 * is lowest in any committed state stays lowest while it lives). Session heartbeats
 * (pings) are answered by the leader outside the log, refreshing its session tracker at once
 * (see raft.ts; real ZooKeeper touches sessions without a transaction too).
 */

import type { Network } from "../network.js";
import type { SimNode } from "../node.js";
import { mapPacked } from "../packed.js";
import type { RandomStreams } from "../rng.js";
import { type Cluster, type ConsensusTimings, createCluster, type StateMachineSpec } from "./raft.js";

export type ZkCmd =
  | { op: "create-session"; timeoutMs: number }
  | { op: "heartbeat"; sessionId: string }
  | { op: "close-session"; sessionId: string }
  | { op: "expire-session"; sessionId: string }
  | { op: "create-ephemeral-sequential"; sessionId: string; prefix: string }
  | { op: "children"; prefix: string }
  | { op: "delete"; path: string };

export interface ZkNodeInfo {
  path: string;
  seq: number;
  zxid: bigint;
}

export type ZkRes =
  | { op: "create-session"; sessionId: string; timeoutMs: number }
  | { op: "heartbeat"; sessionId: string; alive: boolean; timeoutMs: number }
  | { op: "close-session"; sessionId: string }
  | { op: "expire-session"; sessionId: string }
  | { op: "create-ephemeral-sequential"; node: ZkNodeInfo | null }
  | { op: "children"; nodes: ZkNodeInfo[] }
  | { op: "delete"; deleted: boolean };

interface ZNode {
  /** What a read or a create answers: shared by every answer, never written to. */
  readonly info: ZkNodeInfo;
  readonly prefix: string;
  readonly session: string;
}

/**
 * Node paths by prefix and sequence number, made once per ensemble and shared by its members:
 * every member then keys its nodes with the same string, hashed once.
 */
type PathCache = Map<string, string[]>;

export interface ZkState {
  /** The last transaction's id, a plain number here (it stays far below 2^53, and a BigInt
   * increment allocates on every member for every transaction); answers carry it as a BigInt. */
  zxid: number;
  readonly sessions: Map<string, { timeoutMs: number; nodes: Set<string> }>;
  readonly nodes: Map<string, ZNode>;
  readonly nextSeq: Map<string, number>;
  nextSessionId: number;
  readonly paths: PathCache;
}

function pathOf(s: ZkState, prefix: string, seq: number): string {
  let paths = s.paths.get(prefix);
  if (paths === undefined) {
    paths = [];
    s.paths.set(prefix, paths);
  }
  // Members apply one log, so each prefix's paths are made in sequence order: no holes.
  let path = paths[seq];
  if (path === undefined) {
    path = `${prefix}-${String(seq).padStart(10, "0")}`;
    paths[seq] = path;
  }
  return path;
}

function endSession(s: ZkState, sessionId: string): void {
  const session = s.sessions.get(sessionId);
  if (session === undefined) return;
  s.zxid++;
  s.sessions.delete(sessionId);
  for (const path of session.nodes) s.nodes.delete(path);
}

export function applyZk(s: ZkState, cmd: ZkCmd): ZkRes {
  switch (cmd.op) {
    case "create-session": {
      s.zxid++;
      const sessionId = String(s.nextSessionId++);
      s.sessions.set(sessionId, { timeoutMs: cmd.timeoutMs, nodes: new Set() });
      return { op: cmd.op, sessionId, timeoutMs: cmd.timeoutMs };
    }
    case "heartbeat": {
      const session = s.sessions.get(cmd.sessionId);
      return {
        op: cmd.op,
        sessionId: cmd.sessionId,
        alive: session !== undefined,
        timeoutMs: session?.timeoutMs ?? 0,
      };
    }
    case "close-session":
    case "expire-session":
      endSession(s, cmd.sessionId);
      return { op: cmd.op, sessionId: cmd.sessionId };
    case "create-ephemeral-sequential": {
      const session = s.sessions.get(cmd.sessionId);
      if (session === undefined) return { op: cmd.op, node: null };
      s.zxid++;
      const seq = s.nextSeq.get(cmd.prefix) ?? 0;
      s.nextSeq.set(cmd.prefix, seq + 1);
      const path = pathOf(s, cmd.prefix, seq);
      const info: ZkNodeInfo = { path, seq, zxid: BigInt(s.zxid) };
      s.nodes.set(path, { info, prefix: cmd.prefix, session: cmd.sessionId });
      session.nodes.add(path);
      return { op: cmd.op, node: info };
    }
    case "children": {
      // Already in sequence order: a prefix's nodes are inserted in it, and a Map keeps
      // insertion order.
      const nodes: ZkNodeInfo[] = [];
      for (const n of s.nodes.values()) if (n.prefix === cmd.prefix) nodes.push(n.info);
      return { op: cmd.op, nodes };
    }
    case "delete": {
      const node = s.nodes.get(cmd.path);
      if (node === undefined) return { op: cmd.op, deleted: false };
      s.zxid++;
      s.nodes.delete(cmd.path);
      s.sessions.get(node.session)?.nodes.delete(cmd.path);
      return { op: cmd.op, deleted: true };
    }
  }
}

/** A watch condition: the node at `path` no longer exists. */
export function nodeGone(path: string): (s: ZkState) => boolean {
  return (s) => !s.nodes.has(path);
}

/**
 * The ensemble's state machine; its members share one path cache. Written out member by member
 * rather than `{ ...zkRules, init }`: optimized code made that spread a dictionary-mode object,
 * a map of its own per world, so each of raft's reads of the spec (several per applied command)
 * was a megamorphic lookup, missing V8's cache once per world (`--log-ic`: 592 maps at
 * `spec.apply` in 600 runs).
 */
function zkSpec(): StateMachineSpec<ZkCmd, ZkRes, ZkState> {
  const paths: PathCache = new Map();
  return {
    apply: zkRules.apply,
    leases: zkRules.leases,
    leaseEvent: zkRules.leaseEvent,
    leaseId: zkRules.leaseId,
    leaseLifeMs: zkRules.leaseLifeMs,
    expire: zkRules.expire,
    isRenewal: zkRules.isRenewal,
    isReadOnly: zkRules.isReadOnly,
    isLocalRead: zkRules.isLocalRead,
    init: () => ({
      zxid: 0,
      sessions: new Map(),
      nodes: new Map(),
      nextSeq: new Map(),
      nextSessionId: 1,
      paths,
    }),
  };
}

const zkRules: Omit<StateMachineSpec<ZkCmd, ZkRes, ZkState>, "init"> = {
  apply: applyZk,
  leases: (s) => mapPacked([...s.sessions], ([id, session]) => [id, session.timeoutMs] as const),
  leaseEvent(res) {
    switch (res.op) {
      case "create-session":
        return "refresh";
      case "heartbeat":
        return res.alive ? "refresh" : null;
      case "close-session":
      case "expire-session":
        return "gone";
      default:
        return null;
    }
  },
  leaseId: (res) => ("sessionId" in res ? res.sessionId : ""),
  leaseLifeMs: (res) => ("timeoutMs" in res ? res.timeoutMs : 0),
  expire: (sessionId) => ({ op: "expire-session", sessionId }),
  isRenewal: (cmd) => cmd.op === "heartbeat",
  isReadOnly: (cmd) => cmd.op === "children" || cmd.op === "heartbeat",
  isLocalRead: (cmd) => cmd.op === "children",
};

export interface ZkEnsemble {
  readonly cluster: Cluster<ZkCmd, ZkRes, ZkState>;
}

export function createZkEnsemble(
  net: Network,
  nodes: readonly SimNode[],
  streams: RandomStreams,
  timings: ConsensusTimings,
): ZkEnsemble {
  return { cluster: createCluster(net, nodes, streams, timings, zkSpec(), "redirect") };
}
