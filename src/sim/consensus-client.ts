/**
 * How a simulated client reaches a consensus cluster (etcd-like or zk-like).
 *
 * An etcd client (`clusterSession(…, "random")`) is etcd3's, as lockcheck's real adapter
 * runs it (src/real/adapters/etcd.ts: no retries, no circuit breaker): each call, each
 * keep-alive and each watch goes to a member drawn at random from the client's own stream,
 * once; the member forwards it to the leader (raft.ts `routing: "forward"`). A refusal
 * (crashed member) is the call's answer (`unreachable`); a member that knows no leader holds
 * the request, which this client models as waiting one heartbeat interval and asking a member
 * drawn again, until the call's deadline.
 *
 * A ZooKeeper client (`"sticky"`) talks to one member at a time, starting with the last one
 * that answered as leader:
 * - `not-leader` (nothing happened): retry at once at the leader that member named, or the
 *   next member; when nobody knows a leader (an election is under way) wait one heartbeat
 *   interval first;
 * - `unreachable` (a crashed member refused): retry at the next member;
 * - `leader-changed` or silence until the deadline: the request may have committed — report
 *   a timeout, and try the next member first on the next request.
 * The whole call is bounded by one timeout on the client's monotonic clock; if it runs out
 * after answers that all said "nothing happened", the error is `unreachable`.
 *
 * A watch goes to the member the client last used, or a random one (a crashed member refuses
 * it: then the next one), which notifies the client from its own applied state; silence until
 * the wait is over means "not seen", whatever the reason (still there, or the member is cut off).
 *
 * Both are written as callbacks on one SimOp rather than as step code of their own, and their
 * hops react inside the event that answers them (`callThen`): a call costs the client one op
 * and one continuation, however many hops it takes.
 *
 * Background renewals (keep-alives, pings) over the same session: cluster-renewal.ts.
 */
import type { CallResult } from "../env/env.js";
import { type CallBatch, settleClient, soloBatch } from "./batch.js";
import { monoAt, monoDeadline } from "./clock.js";
import type { Network } from "./network.js";
import { type SimNode, setTimerWith } from "./node.js";
import { mapPacked } from "./packed.js";
import type { Random } from "./rng.js";
import { type Channel, callThen, channel, type Responder, respond } from "./rpc.js";
import type { Cluster, Submitted } from "./servers/raft.js";
import { failOp, SimOp } from "./sim-op.js";

export interface ClusterSession {
  readonly net: Network;
  readonly client: SimNode;
  readonly members: readonly SimNode[];
  /** Channels to each member, by member id: a sticky session's opened on first use. */
  readonly channels: (Channel | null)[];
  /** The member tried first by a sticky session (a random session writes it too, and never reads it). */
  preferred: number;
  /** A random session's draws of members (null: sticky). */
  readonly pick: Random | null;
}

/** How a client picks the member it asks (see the header). */
export type MemberChoice = "random" | "sticky";

export function clusterSession(
  net: Network,
  client: SimNode,
  members: readonly { node: SimNode }[],
  choice: MemberChoice,
): ClusterSession {
  return {
    net,
    client,
    members: mapPacked(members, (m) => m.node),
    // A random session reaches every member soon: its channels open now, so that the world
    // seeds their links' streams with the others (network.ts `seedLinks`), three times faster
    // than one at a time on first use. A sticky one mostly reaches only the leader: it opens
    // the one to member 0 now, where its first call goes (`preferred`).
    channels: mapPacked(members, (m, i) =>
      choice === "random" || i === 0 ? channel(net, client, m.node) : null,
    ),
    preferred: 0,
    pick: choice === "random" ? net.streams.stream(`members:${client.name}`) : null,
  };
}

/** The member a session asks first: drawn at random, or the one it prefers. */
export function firstMember(session: ClusterSession): number {
  const { pick } = session;
  return pick === null ? session.preferred : Math.floor(pick() * session.members.length);
}

export function channelTo(session: ClusterSession, member: number): Channel {
  let ch = session.channels[member]!;
  if (ch === null) {
    ch = channel(session.net, session.client, session.members[member]!);
    session.channels[member] = ch;
  }
  return ch;
}

/** One client request to the cluster, from submission until it settles (see the header). */
interface Submission<Cmd, Res, T> {
  readonly net: Network;
  readonly cluster: Cluster<Cmd, Res, unknown>;
  readonly session: ClusterSession;
  readonly cmd: Cmd;
  readonly idleWaitMs: number;
  readonly finish: (res: Res) => CallResult<T>;
  readonly batch: CallBatch;
  /** On the client's monotonic clock. */
  readonly deadline: number;
  /** The member asked now (one call at a time). */
  target: number;
  lastNode: string;
  /** Redirects and refusals since the last wait: after a full round, wait before going on. */
  hops: number;
  /** What the client waits on. */
  readonly op: SimOp<CallResult<T>>;
}

/**
 * Submits `cmd` to the cluster and settles with `finish(result)` once a leader answers, or
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
): SimOp<CallResult<T>> {
  const client = session.client;
  const target = firstMember(session);
  const s: Submission<Cmd, Res, T> = {
    net,
    cluster,
    session,
    cmd,
    idleWaitMs,
    finish,
    batch: soloBatch(client),
    deadline: monoDeadline(client.clock, net.core.now, timeoutMs),
    target,
    lastNode: cluster.members[target]!.node.name,
    hops: 0,
    op: new SimOp<CallResult<T>>(net.core),
  };
  attemptSubmission(s);
  return s.op;
}

/** `finish(res)`, once `res` is checked to answer `cmd` (a mismatch is a bug in the simulator). */
function finishAnswer<Cmd, Res, T>(cmd: Cmd, res: Res, finish: (res: Res) => CallResult<T>): CallResult<T> {
  const asked = (cmd as { op?: unknown }).op;
  const answered = (res as { op?: unknown }).op;
  if (asked !== answered) throw new Error(`sim: ${String(asked)} answered with ${String(answered)}`);
  return finish(res);
}

function settleSubmission<Cmd, Res, T>(s: Submission<Cmd, Res, T>, r: CallResult<T>): void {
  settleClient(s.session.client, s.batch, s.op, r);
}

function attemptSubmission<Cmd, Res, T>(s: Submission<Cmd, Res, T>): void {
  const client = s.session.client;
  const remaining = s.deadline - monoAt(client.clock, s.net.core.now);
  if (remaining <= 0) {
    settleSubmission(s, {
      ok: false,
      error: { kind: "unreachable", node: s.lastNode, detail: "no leader answered" },
    });
    return;
  }
  s.lastNode = s.cluster.members[s.target]!.node.name;
  callThen<Submitted<Res>, Submission<Cmd, Res, T>>(
    channelTo(s.session, s.target),
    remaining,
    serveSubmission,
    submissionAnswered,
    s,
  );
}

function serveSubmission<Cmd, Res, T>(s: Submission<Cmd, Res, T>, to: Responder<Submitted<Res>>): void {
  s.cluster.submit(s.target, s.cmd, respondWith, to);
}

function respondWith<Res>(to: Responder<Submitted<Res>>, answer: Submitted<Res>): void {
  respond(to, { ok: true, value: answer });
}

function submissionAnswered<Cmd, Res, T>(r: CallResult<Submitted<Res>>, s: Submission<Cmd, Res, T>): void {
  const n = s.cluster.members.length;
  const { session } = s;
  if (!r.ok) {
    if (r.error.kind === "timeout") {
      session.preferred = (s.target + 1) % n;
      settleSubmission(s, r);
      return;
    }
    if (session.pick !== null) {
      // etcd3 asks one member per call: its refusal is the answer.
      settleSubmission(s, r);
      return;
    }
    s.target = (s.target + 1) % n;
    if (++s.hops < n) {
      attemptSubmission(s);
      return;
    }
  } else {
    const answer = r.value;
    if (answer.kind === "done") {
      session.preferred = s.target;
      let result: CallResult<T>;
      try {
        result = finishAnswer(s.cmd, answer.value, s.finish);
      } catch (e) {
        // A bug in the simulator: fail the client loudly.
        session.client.core.settled = true;
        failOp(s.op, e);
        return;
      }
      settleSubmission(s, result);
      return;
    }
    if (answer.kind === "leader-changed") {
      session.preferred = (s.target + 1) % n;
      settleSubmission(s, {
        ok: false,
        error: { kind: "timeout", node: s.lastNode, detail: "leader changed" },
      });
      return;
    }
    if (session.pick !== null) {
      // No leader where it was forwarded: etcd holds it; ask again after a while.
      s.target = firstMember(session);
      waitThenAttempt(s);
      return;
    }
    s.target = answer.leader !== null && answer.leader !== s.target ? answer.leader : (s.target + 1) % n;
    if (answer.leader !== null && ++s.hops < n) {
      attemptSubmission(s);
      return;
    }
  }
  waitThenAttempt(s);
}

/** Asks again after the idle wait (an election is under way), within the call's deadline. */
function waitThenAttempt<Cmd, Res, T>(s: Submission<Cmd, Res, T>): void {
  const { session } = s;
  s.hops = 0;
  const client = session.client;
  const left = s.deadline - monoAt(client.clock, s.net.core.now);
  setTimerWith(client, Math.min(s.idleWaitMs, Math.max(0, left)), attemptSubmission, s);
}

/** A client's watch at the cluster, from its start until it settles. */
interface Watching<Cmd, Res, SM> {
  readonly net: Network;
  readonly cluster: Cluster<Cmd, Res, SM>;
  readonly session: ClusterSession;
  readonly seen: (sm: SM) => boolean;
  readonly batch: CallBatch;
  readonly deadline: number;
  target: number;
  tries: number;
  /** What the member being asked was told to wait (ms). */
  waitMs: number;
  readonly op: SimOp<CallResult<boolean>>;
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
): SimOp<CallResult<boolean>> {
  const client = session.client;
  const w: Watching<Cmd, Res, SM> = {
    net,
    cluster,
    session,
    seen,
    batch: soloBatch(client),
    deadline: monoDeadline(client.clock, net.core.now, waitMs),
    target: firstMember(session),
    tries: 0,
    waitMs: 0,
    op: new SimOp<CallResult<boolean>>(net.core),
  };
  attemptWatch(w);
  return w.op;
}

function attemptWatch<Cmd, Res, SM>(w: Watching<Cmd, Res, SM>): void {
  const remaining = w.deadline - monoAt(w.session.client.clock, w.net.core.now);
  if (remaining <= 0) {
    settleClient(w.session.client, w.batch, w.op, NOT_SEEN);
    return;
  }
  w.waitMs = remaining;
  callThen<boolean, Watching<Cmd, Res, SM>>(
    channelTo(w.session, w.target),
    remaining,
    serveWatch,
    watchAnswered,
    w,
  );
}

function serveWatch<Cmd, Res, SM>(w: Watching<Cmd, Res, SM>, to: Responder<boolean>): void {
  w.cluster.watch(w.target, w.seen, w.waitMs, respondSeen, to);
}

function respondSeen(to: Responder<boolean>): void {
  respond(to, SEEN);
}

function watchAnswered<Cmd, Res, SM>(r: CallResult<boolean>, w: Watching<Cmd, Res, SM>): void {
  const n = w.cluster.members.length;
  if (r.ok || r.error.kind === "timeout") {
    settleClient(w.session.client, w.batch, w.op, r.ok ? SEEN : NOT_SEEN);
    return;
  }
  if (++w.tries < n) {
    w.target = (w.target + 1) % n;
    attemptWatch(w);
    return;
  }
  const node = w.cluster.members[w.target]!.node.name;
  settleClient(w.session.client, w.batch, w.op, {
    ok: false,
    error: { kind: "unreachable", node, detail: "every member refused the watch" },
  });
}

/** Watch answers are never mutated by their readers: shared. */
const SEEN: CallResult<boolean> = Object.freeze({ ok: true, value: true });
const NOT_SEEN: CallResult<boolean> = Object.freeze({ ok: true, value: false });
