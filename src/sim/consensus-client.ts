/**
 * How a simulated client reaches a consensus cluster (etcd-like or zk-like). The client
 * talks to one member at a time, starting with the last one that answered as leader:
 * - `not-leader` (nothing happened): retry at once at the leader that member named, or the
 *   next member; when nobody knows a leader (an election is under way) wait one heartbeat
 *   interval first;
 * - `unreachable` (a crashed member refused): retry at the next member;
 * - `leader-changed` or silence until the deadline: the request may have committed — report
 *   a timeout, and try the next member first on the next request.
 * The whole call is bounded by one timeout on the client's monotonic clock; if it runs out
 * after answers that all said "nothing happened", the error is `unreachable`.
 */
import type { CallResult } from "../env/env.js";
import { monoAt } from "./clock.js";
import type { Network } from "./network.js";
import { type SimNode, setTimer } from "./node.js";
import { type Channel, call, channel } from "./rpc.js";
import type { Cluster, Submitted } from "./servers/raft.js";

export interface ClusterSession {
  readonly client: SimNode;
  /** Channels to each member, by member id. */
  readonly channels: readonly Channel[];
  /** The member tried first. */
  preferred: number;
}

export function clusterSession(
  net: Network,
  client: SimNode,
  members: readonly { node: SimNode }[],
): ClusterSession {
  return { client, channels: members.map((m) => channel(net, client, m.node)), preferred: 0 };
}

export async function submitToCluster<Cmd, Res>(
  net: Network,
  cluster: Cluster<Cmd, Res, unknown>,
  session: ClusterSession,
  cmd: Cmd,
  timeoutMs: number,
  idleWaitMs: number,
): Promise<CallResult<Res>> {
  const n = cluster.members.length;
  const client = session.client;
  const clientMono = (): number => monoAt(client.clock, net.core.now);
  const deadline = clientMono() + timeoutMs;
  let target = session.preferred;
  let lastNode = cluster.members[target]!.node.name;
  // Redirects and refusals since the last wait: after a full round, wait before going on.
  let hops = 0;
  for (;;) {
    const remaining = deadline - clientMono();
    if (remaining <= 0) {
      return { ok: false, error: { kind: "unreachable", node: lastNode, detail: "no leader answered" } };
    }
    const member = cluster.members[target]!;
    lastNode = member.node.name;
    const r: CallResult<Submitted<Res>> = await call(session.channels[target]!, remaining, (respond) =>
      cluster.submit(target, cmd, (s) => respond({ ok: true, value: s })),
    );
    if (!r.ok) {
      if (r.error.kind === "timeout") {
        session.preferred = (target + 1) % n;
        return r;
      }
      target = (target + 1) % n;
      if (++hops < n) continue;
    } else {
      const s = r.value;
      if (s.kind === "done") {
        session.preferred = target;
        return { ok: true, value: s.value };
      }
      if (s.kind === "leader-changed") {
        session.preferred = (target + 1) % n;
        return { ok: false, error: { kind: "timeout", node: lastNode, detail: "leader changed" } };
      }
      target = s.leader !== null && s.leader !== target ? s.leader : (target + 1) % n;
      if (s.leader !== null && ++hops < n) continue;
    }
    hops = 0;
    await new Promise<void>((resolve) =>
      setTimer(client, Math.min(idleWaitMs, Math.max(0, deadline - clientMono())), () => {
        net.core.settled = true;
        resolve();
      }),
    );
  }
}
