/**
 * The simulated world of one run: nodes, network, servers and the history being recorded,
 * built from a schedule. Everything random is drawn from the schedule's seed.
 */

import type { LockAlgorithm } from "../locks/lock.js";
import type { Schedule } from "../schedule/schedule.js";
import { clearQueue } from "./event-queue.js";
import { createNetwork, type Network } from "./network.js";
import { createNode, type SimNode } from "./node.js";
import { mapPacked } from "./packed.js";
import { createHistoryRecorder, type HistoryRecorder } from "./recorder.js";
import { createRandomStreams, type RandomStreams } from "./rng.js";
import { createCore, type SimCore } from "./scheduler.js";
import {
  type ConsensusTimings,
  createEtcdCluster,
  type EtcdCluster,
  type EtcdLeaseEnd,
} from "./servers/etcd.js";
import { createRedisNode, type RedisNode } from "./servers/redis.js";
import { createResourceNode, type ResourceNode } from "./servers/resource.js";
import { createZkEnsemble, type ZkEnsemble } from "./servers/zk.js";

export interface SimWorld {
  readonly schedule: Schedule;
  readonly core: SimCore;
  readonly net: Network;
  /** Random streams for everything that is not a network link (elections, …). */
  readonly streams: RandomStreams;
  readonly history: HistoryRecorder;
  readonly nodes: ReadonlyMap<string, SimNode>;
  readonly clients: ReadonlyMap<number, SimNode>;
  readonly servers: readonly SimNode[];
  readonly resourceNode: SimNode;
  readonly resource: ResourceNode;
  readonly redis: readonly RedisNode[];
  readonly etcd: EtcdCluster | null;
  readonly zk: ZkEnsemble | null;
  readonly timings: ConsensusTimings;
}

export interface WorldOptions {
  /** Raft timing of the etcd-like and zk-like clusters (defaults: etcd's). */
  consensus?: Partial<ConsensusTimings>;
  /**
   * When the etcd-like cluster ends a lease whose TTL ran out (servers/etcd.ts): "latest"
   * (default), as late as a real etcd may, or "earliest", as soon as it may.
   */
  etcdLeaseEnd?: EtcdLeaseEnd;
  /** A run that needs more events than this fails (default 20 million: a runaway client). */
  maxEvents?: number;
  /**
   * Drain client code after every settle (default true). `simulate` runs with reply batching
   * first and falls back to a strict run when it cannot be exact (see batch.ts).
   */
  strict?: boolean;
}

export const DEFAULT_CONSENSUS_TIMINGS: ConsensusTimings = { heartbeatMs: 100, electionMs: 1000 };

export function createWorld(
  schedule: Schedule,
  servers: LockAlgorithm["servers"],
  opts: WorldOptions = {},
): SimWorld {
  const { options } = schedule;
  if (schedule.resource === "fenced-txn" && servers !== "etcd") {
    throw new RangeError(`simulate: resource "fenced-txn" needs an etcd-like target, not ${servers}`);
  }
  const core = createCore(opts.strict ?? true);
  const nodes = new Map<string, SimNode>();
  const net = createNetwork(
    core,
    schedule.seed,
    { latencyMs: options.latencyMs, lossRate: options.lossRate },
    nodes,
  );
  const streams = createRandomStreams(schedule.seed);
  const add = (name: string): SimNode => {
    const n = createNode(core, name);
    nodes.set(name, n);
    return n;
  };
  const clients = new Map<number, SimNode>();
  for (const c of schedule.clients) {
    if (clients.has(c.id)) throw new RangeError(`simulate: two clients have id ${c.id}`);
    clients.set(c.id, add(`client:${c.id}`));
  }
  const serverNodes: SimNode[] = [];
  for (let i = 0; i < options.servers; i++) serverNodes.push(add(`server:${i}`));
  const resourceNode = add("resource");
  const timings = { ...DEFAULT_CONSENSUS_TIMINGS, ...opts.consensus };
  return {
    schedule,
    core,
    net,
    streams,
    history: createHistoryRecorder(core),
    nodes,
    clients,
    servers: serverNodes,
    resourceNode,
    resource: createResourceNode(schedule.resource === "fenced"),
    redis: servers === "redis" ? mapPacked(serverNodes, createRedisNode) : [],
    etcd:
      servers === "etcd"
        ? createEtcdCluster(net, serverNodes, streams, timings, opts.etcdLeaseEnd ?? "latest")
        : null,
    zk: servers === "zk" ? createZkEnsemble(net, serverNodes, streams, timings) : null,
    timings,
  };
}

/** The node a schedule's node ref names right now (`server:leader` is resolved at this moment). */
export function resolveNodeRef(w: SimWorld, ref: string): SimNode | undefined {
  if (ref === "server:leader") {
    const leader = w.etcd?.cluster.leader() ?? w.zk?.cluster.leader() ?? null;
    return leader ?? w.servers[0];
  }
  return w.nodes.get(ref);
}

/**
 * Empties the arrays a world fills as its run goes on (the history, the agenda, each raft
 * member's log and pending answers), once the run is over and its history copied out
 * (`simulate`). Measured with --trace-gc-nvp over 900 standard schedules: left full, they kept
 * finished runs' objects alive through minor GCs until they were promoted, though nothing
 * reached them (a full GC freed them). Promoted per loop: sim:lease 77 MB → 12 MB, sim:consensus
 * 146 → 46 MB, sim:zk 118 → 54 MB; GC pauses of consensus 1.3–1.5 s → 0.6–0.7 s. Why those
 * arrays were in the old generation by then was not found out.
 */
export function emptyWorld(w: SimWorld): void {
  w.history.ops.length = 0;
  w.history.openFields.length = 0;
  w.history.openProcess.length = 0;
  clearQueue(w.core.queue);
  for (const cluster of [w.etcd?.cluster, w.zk?.cluster]) {
    if (cluster === undefined) continue;
    for (const m of cluster.members) {
      m.log.length = 0;
      m.pending.length = 0;
    }
  }
}
