/**
 * What a real fault acts on, and what it may use: the world's processes and proxies, the
 * client fleet, the nemesis's recorder and timers. Node refs from the schedule resolve when
 * a fault starts (`server:leader` names whoever leads at that moment; for Redis targets,
 * which have no leader, it is server:0, as in the simulator), and the fault's end applies to
 * that same node.
 */
import type { NemesisF } from "../../history/op.js";
import type { PartitionMode } from "../../schedule/schedule.js";
import type { ClientFleet } from "../clients.js";
import type { EtcdMember } from "../cluster/etcd.js";
import { sleep } from "../cluster/net.js";
import type { RedisNode } from "../cluster/redis.js";
import type { RealWorld } from "../world.js";

/**
 * How long a fault aimed at `server:leader` waits for one when no member leads (an election
 * under way, e.g. just after the leader was paused): several election timeouts (500 ms here).
 * It then starts late rather than not at all; with no leader even then it does nothing.
 */
export const LEADER_WAIT_MS = 3000;
const LEADER_POLL_MS = 50;

async function leaderWithin(leader: () => Promise<number | null>, waitMs: number): Promise<number | null> {
  const deadline = performance.now() + waitMs;
  for (;;) {
    const index = await leader();
    if (index !== null || performance.now() >= deadline) return index;
    await sleep(LEADER_POLL_MS);
  }
}

export type RealNode =
  | { kind: "client"; name: string; id: number }
  | { kind: "redis"; name: string; node: RedisNode }
  | { kind: "etcd"; name: string; member: EtcdMember }
  /** The `fenced-txn` resource lives in the etcd cluster: there is no separate process to hit. */
  | { kind: "etcd-resource"; name: "resource" };

export interface FaultContext {
  readonly world: RealWorld;
  readonly partitionMode: PartitionMode;
  readonly clients: ClientFleet;
  /** Records a nemesis op at `time` (ns since t0; default now, by the monotonic clock). */
  record(f: NemesisF, node: string | undefined, value: unknown, time?: number): void;
  /** Now, in ns since t0. */
  nowNs(): number;
  /** Runs `fn` after `ms` unless the run is over by then. */
  after(ms: number, fn: () => void | Promise<void>): void;
  /** Resolves a node ref; undefined if the world has no such node (nothing to do). */
  resolve(ref: string): Promise<RealNode | undefined>;
}

/** The process currently behind a server node, if it runs. */
export function serverProcess(node: RealNode) {
  if (node.kind === "redis") return node.node.current();
  if (node.kind === "etcd") return node.member.current();
  return null;
}

export async function resolveNode(
  world: RealWorld,
  clients: ClientFleet,
  ref: string,
  leaderWaitMs = LEADER_WAIT_MS,
): Promise<RealNode | undefined> {
  if (ref === "resource") {
    if (world.resource !== null) return { kind: "redis", name: "resource", node: world.resource };
    return world.etcd !== null ? { kind: "etcd-resource", name: "resource" } : undefined;
  }
  const client = /^client:(\d+)$/.exec(ref);
  if (client !== null) {
    const id = Number(client[1]);
    return clients.ids.includes(id) ? { kind: "client", name: ref, id } : undefined;
  }
  let index: number | null;
  const etcd = world.etcd;
  if (ref === "server:leader") {
    index = etcd !== null ? await leaderWithin(() => etcd.leader(), leaderWaitMs) : 0;
  } else {
    const server = /^server:(\d+)$/.exec(ref);
    index = server === null ? null : Number(server[1]);
  }
  if (index === null) return undefined;
  if (world.etcd !== null) {
    const member = world.etcd.members[index];
    return member === undefined ? undefined : { kind: "etcd", name: member.name, member };
  }
  const node = world.redis[index];
  return node === undefined ? undefined : { kind: "redis", name: node.name, node };
}
