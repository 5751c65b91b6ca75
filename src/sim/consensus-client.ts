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
 *
 * A watch goes to the member the client last used (a crashed member refuses it: then the
 * next one), which notifies the client from its own applied state; silence until the wait
 * is over means "not seen", whatever the reason (still there, or the member is cut off).
 *
 * Both are written as callbacks on one promise rather than as async functions: a call then
 * costs the client one promise and one continuation, however many hops it takes.
 *
 * Background renewals (keep-alives, pings) over the same session: cluster-renewal.ts.
 */
import type { CallResult } from "../env/env.js";
import { monoAt } from "./clock.js";
import type { Network } from "./network.js";
import { type SimNode, setTimerWith } from "./node.js";
import { type Channel, call, channel } from "./rpc.js";
import type { Cluster, Submitted } from "./servers/raft.js";

export interface ClusterSession {
  readonly net: Network;
  readonly client: SimNode;
  readonly members: readonly SimNode[];
  /** Channels to each member, by member id, opened on first use (most clients only ever reach the leader). */
  readonly channels: (Channel | null)[];
  /** The member tried first. */
  preferred: number;
}

export function clusterSession(
  net: Network,
  client: SimNode,
  members: readonly { node: SimNode }[],
): ClusterSession {
  return {
    net,
    client,
    members: members.map((m) => m.node),
    channels: members.map(() => null),
    preferred: 0,
  };
}

export function channelTo(session: ClusterSession, member: number): Channel {
  let ch = session.channels[member]!;
  if (ch === null) {
    ch = channel(session.net, session.client, session.members[member]!);
    session.channels[member] = ch;
  }
  return ch;
}

/**
 * Submits `cmd` to the cluster and resolves with `finish(result)` once a leader answers, or
 * with the error that ended the call.
 */
export function submitToCluster<Cmd, Res, T>(
  net: Network,
  cluster: Cluster<Cmd, Res, unknown>,
  session: ClusterSession,
  cmd: Cmd,
  timeoutMs: number,
  idleWaitMs: number,
  finish: (res: Res) => CallResult<T>,
): Promise<CallResult<T>> {
  return new Promise((resolve, reject) => {
    const n = cluster.members.length;
    const client = session.client;
    const clientMono = (): number => monoAt(client.clock, net.core.now);
    const deadline = clientMono() + timeoutMs;
    let target = session.preferred;
    let lastNode = cluster.members[target]!.node.name;
    // Redirects and refusals since the last wait: after a full round, wait before going on.
    let hops = 0;

    const attempt = (): void => {
      const remaining = deadline - clientMono();
      if (remaining <= 0) {
        // Possibly run by the wait's timer: the loop must let the client go on.
        net.core.settled = true;
        resolve({ ok: false, error: { kind: "unreachable", node: lastNode, detail: "no leader answered" } });
        return;
      }
      const member = target;
      lastNode = cluster.members[member]!.node.name;
      call<Submitted<Res>>(channelTo(session, member), remaining, (respond) =>
        cluster.submit(member, cmd, (s) => respond({ ok: true, value: s })),
      ).then(answered);
    };

    const answered = (r: CallResult<Submitted<Res>>): void => {
      if (!r.ok) {
        if (r.error.kind === "timeout") {
          session.preferred = (target + 1) % n;
          resolve(r);
          return;
        }
        target = (target + 1) % n;
        if (++hops < n) {
          attempt();
          return;
        }
      } else {
        const s = r.value;
        if (s.kind === "done") {
          session.preferred = target;
          try {
            resolve(finish(s.value));
          } catch (e) {
            reject(e); // a bug in the simulator: fail the client loudly
          }
          return;
        }
        if (s.kind === "leader-changed") {
          session.preferred = (target + 1) % n;
          resolve({ ok: false, error: { kind: "timeout", node: lastNode, detail: "leader changed" } });
          return;
        }
        target = s.leader !== null && s.leader !== target ? s.leader : (target + 1) % n;
        if (s.leader !== null && ++hops < n) {
          attempt();
          return;
        }
      }
      hops = 0;
      setTimerWith(client, Math.min(idleWaitMs, Math.max(0, deadline - clientMono())), attempt, undefined);
    };

    attempt();
  });
}

/**
 * Waits at one member until `seen` holds for its state: true when notified, false when
 * `waitMs` ran out; `unreachable` only if every member refused the watch (all crashed).
 */
export function watchAtCluster<Cmd, Res, SM>(
  net: Network,
  cluster: Cluster<Cmd, Res, SM>,
  session: ClusterSession,
  seen: (sm: SM) => boolean,
  waitMs: number,
): Promise<CallResult<boolean>> {
  return new Promise((resolve) => {
    const n = cluster.members.length;
    const client = session.client;
    const deadline = monoAt(client.clock, net.core.now) + waitMs;
    let target = session.preferred;
    let tries = 0;

    const attempt = (): void => {
      const remaining = deadline - monoAt(client.clock, net.core.now);
      if (remaining <= 0) {
        resolve(NOT_SEEN);
        return;
      }
      const member = target;
      call<boolean>(channelTo(session, member), remaining, (respond) =>
        cluster.watch(member, seen, remaining, () => respond(SEEN)),
      ).then(answered);
    };

    const answered = (r: CallResult<boolean>): void => {
      if (r.ok || r.error.kind === "timeout") {
        resolve(r.ok ? SEEN : NOT_SEEN);
        return;
      }
      if (++tries < n) {
        target = (target + 1) % n;
        attempt();
        return;
      }
      const node = cluster.members[target]!.node.name;
      resolve({ ok: false, error: { kind: "unreachable", node, detail: "every member refused the watch" } });
    };

    attempt();
  });
}

/** Watch answers are never mutated by their readers: shared. */
const SEEN: CallResult<boolean> = Object.freeze({ ok: true, value: true });
const NOT_SEEN: CallResult<boolean> = Object.freeze({ ok: true, value: false });
