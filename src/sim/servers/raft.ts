/**
 * The consensus core shared by the etcd-like cluster and the zk-like ensemble: Raft (leader
 * election, log replication, commit by majority) over the simulated network, driving a
 * deterministic replicated state machine, plus the leader-side lessor that expires leases
 * (etcd) or sessions (ZooKeeper).
 *
 * Modelled after etcd's raft:
 * - Timers run on each member's monotonic clock: the leader sends heartbeats every
 *   `heartbeatMs`; a follower that hears nothing for its election timeout starts an
 *   election. As in etcd, the timeout is drawn at random in [electionMs, 2·electionMs) when
 *   a member becomes follower or candidate (or restarts), and hearing from the leader (or
 *   granting a vote) only restarts the countdown: the deadline moves, and the one pending
 *   timer re-arms itself for the new deadline when it comes due (a timer replaced while its
 *   node was paused is dropped rather than starting a stray election). CheckQuorum: a
 *   leader that has not heard from a majority within `electionMs` steps down — and a leader
 *   that was paused and wakes up can still commit nothing without a majority, because
 *   commit needs a majority's acks in its own term (Raft's rule).
 * - Term, vote, log and the applied state machine survive a crash (etcd persists its WAL and
 *   its backend); roles, the lessor and uncommitted client requests do not.
 * - Replication is pipelined as in etcd's StateReplicate: the leader sends each new entry to
 *   each follower once, advancing its `nextIndex` optimistically, instead of resending the
 *   unacknowledged tail with every proposal. A rejection puts the follower in probe state
 *   (etcd's StateProbe): one append at a time, resent with the heartbeat, until one succeeds.
 *   A new leader starts every follower in probe state.
 * - Heartbeats go only to followers that got no append since the last heartbeat tick (the
 *   Raft paper's "heartbeats during idle periods"): an append resets a follower's election
 *   timer, and its reply counts for CheckQuorum just as a heartbeat's does. When the commit
 *   index moves, followers learn it one hop later, as from etcd's bcastAppend or ZooKeeper's
 *   COMMIT; the simulator sends that notice only to followers with a watch waiting (nothing
 *   else reads a follower's applied state before its next append), so a watch served at a
 *   follower fires as soon as on a real cluster.
 * - Every client request that changes state is a log entry: a reply is sent only once the
 *   entry is committed and applied by the leader that accepted it. So are reads, so that no
 *   read is stale — except local reads (`spec.isLocalRead`: ZooKeeper's), which a leader
 *   answers from its applied state, as a ZooKeeper server answers reads without a quorum
 *   round: a deposed leader that does not know it yet may answer from an old state. A
 *   leader serves them only once it has applied its own term's no-op (its lessor is
 *   promoted), so a read never misses a write acknowledged to the client under an earlier
 *   leader (ZooKeeper's clients refuse a server behind their last-seen zxid for the same
 *   reason); until then they go through the log.
 * - Renewals (etcd lease keep-alives, ZooKeeper session pings: `spec.isRenewal`) are served
 *   outside the log, as real etcd does: a leader whose lessor is promoted answers from its
 *   applied state and refreshes the deadline in its lessor at once. As in etcd, a deposed
 *   leader that does not know it yet (until CheckQuorum steps it down) may still answer a
 *   renewal; its lessor is not the one that expires leases any more, so the renewal is lost.
 *   A leader whose lessor is not promoted yet sends the renewal through the log.
 * - Followers skip applying read-only entries (`spec.isReadOnly`): they change no state and
 *   a follower answers no client, so only the leader's result is ever used.
 * - A member that is not the leader either answers `not-leader` with the leader it knows
 *   (`routing: "redirect"`, ZooKeeper's client follows it) or, as etcd does, forwards the
 *   request to that leader over the peer network and relays its answer (`routing:
 *   "forward"`): a client cut off from the leader alone still gets through another member,
 *   and a request forwarded over a cut link is lost (the client times out). A member that
 *   knows no leader, or a leader that is one no longer when a forwarded request arrives,
 *   answers `not-leader`. A leader that loses its leadership before its entry commits
 *   answers `leader-changed` (the entry may still commit under the next leader: the client
 *   must treat it as unknown).
 * - Leases: the leader tracks each lease's deadline on its monotonic clock and, when one
 *   passes, proposes its expiry through the log. A new leader first applies its own term's
 *   no-op entry, then gives every lease a full TTL from that moment (etcd's lessor Promote),
 *   so a lease never expires merely because the leader changed.
 * - Watches (etcd watch, ZooKeeper exists-watch) are served by whichever member the client
 *   asked, from that member's applied state, outside the log, as in etcd and ZooKeeper: the
 *   member notifies the client once a condition on its state holds (at once if it holds
 *   already). A member that falls behind notifies late; a crash drops its watches (their
 *   connections die); a watch the client has given up on is dropped when next looked at.
 * - The run starts with member 0 leading term 1 (clusters are up before clients connect).
 */
import { monoAt } from "../clock.js";
import { type Link, linkBetween, type Network, send, sendThunk } from "../network.js";
import { cancelTimer, type Delivery, type SimNode, setTimer, setTimerWith, type Timer } from "../node.js";
import { mapPacked } from "../packed.js";
import type { Random, RandomStreams } from "../rng.js";

export interface ConsensusTimings {
  heartbeatMs: number;
  electionMs: number;
}

/** What the leader's lessor learns from an applied command: a lease refreshed, a lease gone, or nothing. */
export type LeaseEvent = "refresh" | "gone" | null;

/** A deterministic replicated state machine plugged into the consensus core. */
export interface StateMachineSpec<Cmd, Res, SM> {
  init(): SM;
  apply(sm: SM, cmd: Cmd): Res;
  /**
   * Every live lease (or session) and how long after a refresh the leader expires it (its TTL,
   * plus any lag of the real server's expiry), for a new leader's lessor.
   */
  leases(sm: SM): Iterable<readonly [id: string, lifeMs: number]>;
  leaseEvent(res: Res): LeaseEvent;
  /** The lease (or session) of a result with a lease event. */
  leaseId(res: Res): string;
  /** How long after a result whose lease event is "refresh" the leader expires it (as `leases`). */
  leaseLifeMs(res: Res): number;
  /** The command a leader proposes to expire a lease whose deadline passed. */
  expire(id: string): Cmd;
  /** A lease renewal (keep-alive, session ping): read-only, served outside the log. */
  isRenewal(cmd: Cmd): boolean;
  /** A command that changes nothing (a read): followers, who answer no one, skip applying it. */
  isReadOnly(cmd: Cmd): boolean;
  /** A read a leader answers from its applied state, outside the log (see above). */
  isLocalRead(cmd: Cmd): boolean;
}

/** A client's watch registered at a member. */
interface Watch<SM> {
  seen: (sm: SM) => boolean;
  notify: (arg: never) => void;
  arg: unknown;
  /** The member's monotonic time after which the client no longer waits for it. */
  untilMono: number;
}

/** How a member answers a client request. */
export type Submitted<Res> =
  | { kind: "done"; value: Res }
  | { kind: "not-leader"; leader: number | null }
  | { kind: "leader-changed" };

interface Entry<Cmd> {
  term: number;
  /** null: the no-op a new leader appends to commit earlier entries. */
  cmd: Cmd | null;
}

/** How a member answers a client request: `answer(arg, submitted)`, as the caller asked. */
type Answer<Res> = (arg: never, s: Submitted<Res>) => void;

/** A client request in the log that its leader answers once the entry is applied. */
interface Pending<Res> {
  index: number;
  term: number;
  answer: Answer<Res>;
  arg: unknown;
}

type Role = "follower" | "candidate" | "leader";

export interface Member<Cmd, Res, SM> {
  readonly id: number;
  readonly node: SimNode;
  readonly rand: Random;
  // Persistent (survives a crash).
  term: number;
  votedFor: number | null;
  /**
   * Entries are only ever appended to this array: a truncation (onAppend) replaces it with a
   * shorter copy, so an append message in flight reads its entries from the array it was sent
   * from instead of carrying a copy of them.
   */
  log: Entry<Cmd>[];
  sm: SM;
  lastApplied: number;
  // Volatile.
  role: Role;
  leaderId: number | null;
  commitIndex: number;
  votes: Set<number>;
  /** Next entry to send to each member; advanced when sent (pipelining), not when acked. */
  nextIndex: number[];
  matchIndex: number[];
  /** Per member: in probe state (one append at a time, until one is accepted). */
  probing: boolean[];
  /** Per member: an append was sent since the last heartbeat tick. */
  sentSinceTick: boolean[];
  /** Per member: heard from since the last CheckQuorum tick; `heardCount` of them. (Not a Set:
   * only the count is read, and a Set's add on every append reply costs a hash lookup.) */
  heardFrom: boolean[];
  heardCount: number;
  electionTimer: Timer | null;
  /** The current election timeout (ms), drawn when becoming follower or candidate. */
  electionTimeoutMs: number;
  /** Monotonic time at which the election timer is due; moved on by `touchElectionTimer`. */
  electionDeadline: number;
  heartbeatTimer: Timer | null;
  quorumTimer: Timer | null;
  /** In log order: a leader only appends, and a member stops being leader only by stepDown or a crash, which clear it. */
  pending: Pending<Res>[];
  /** Lease deadlines on this member's monotonic clock; null unless a promoted leader. */
  lessor: Map<string, number> | null;
  /** No deadline in the lessor is earlier (a lower bound): until then, heartbeats skip the lessor. */
  lessorDue: number;
  expiring: Set<string>;
}

export interface Cluster<Cmd, Res, SM> {
  readonly members: readonly Member<Cmd, Res, SM>[];
  /** The member that is leader in the highest term and is not crashed, if any. */
  leader(): SimNode | null;
  /**
   * Handles a client request at `member` (run on that member, when a request arrives): the
   * member answers with `answer(arg, submitted)`, at once or once the entry is applied.
   */
  submit<X>(member: number, cmd: Cmd, answer: (arg: X, s: Submitted<Res>) => void, arg: X): void;
  /**
   * Registers a watch at `member` (run on that member, when the request arrives):
   * `notify(arg)` runs once `seen` holds for the member's applied state, unless `waitMs`
   * passes first.
   */
  watch<X>(member: number, seen: (sm: SM) => boolean, waitMs: number, notify: (arg: X) => void, arg: X): void;
}

/** AppendEntries (entries may be empty: a heartbeat), as a network message. */
interface AppendMsg<Cmd> extends Delivery {
  readonly to: number;
  readonly leader: number;
  readonly term: number;
  readonly prevIndex: number;
  readonly prevTerm: number;
  /** The entries sent are log[prevIndex + 1 .. prevIndex + count] of the sender's log (see Member.log). */
  readonly log: readonly Entry<Cmd>[];
  readonly count: number;
  readonly commit: number;
}

/** The leader's new commit index, for a follower with a watch waiting (see noticeCommit). */
interface CommitNoticeMsg extends Delivery {
  readonly to: number;
  readonly leader: number;
  readonly term: number;
  readonly upTo: number;
}

/** The answer to an AppendEntries message, as a network message. */
interface AppendReplyMsg extends Delivery {
  readonly to: number;
  readonly from: number;
  readonly term: number;
  readonly success: boolean;
  readonly match: number;
  /** The prevIndex of the append answered. */
  readonly prevIndex: number;
}

/** A client request a follower forwards to the leader, then the leader's answer on its way back. */
interface ForwardMsg<Cmd, Res, SM> extends Delivery {
  readonly via: Member<Cmd, Res, SM>;
  readonly leader: Member<Cmd, Res, SM>;
  readonly cmd: Cmd;
  readonly answer: Answer<Res>;
  readonly arg: unknown;
  result: Submitted<Res> | null;
}

/** The answer is back at the follower: it answers the client. */
function relayArrived<Cmd, Res, SM>(msg: ForwardMsg<Cmd, Res, SM>): void {
  msg.answer(msg.arg as never, msg.result!);
}

/** Answers are never mutated by their readers: shared. */
const LEADER_CHANGED: Submitted<never> = Object.freeze({ kind: "leader-changed" });

/** Entries per AppendEntries message. */
const MAX_BATCH = 64;

/** A deadline this close (ms) counts as reached: see electionTimerDue. */
const DUE_WITHIN_MS = 1e-6;

/** What a member that is not the leader does with a client request (see the header). */
export type Routing = "redirect" | "forward";

export function createCluster<Cmd, Res, SM>(
  net: Network,
  nodes: readonly SimNode[],
  streams: RandomStreams,
  timings: ConsensusTimings,
  spec: StateMachineSpec<Cmd, Res, SM>,
  routing: Routing,
): Cluster<Cmd, Res, SM> {
  const n = nodes.length;
  // No member sends to itself: no link (and no random stream) for that.
  const links: (Link | null)[][] = mapPacked(nodes, (a) =>
    mapPacked(nodes, (b) => (a === b ? null : linkBetween(net, a, b))),
  );
  const sendTo = (from: Member<Cmd, Res, SM>, to: Member<Cmd, Res, SM>, handle: () => void): void =>
    sendThunk(net, links[from.id]![to.id]!, handle);
  const majority = Math.floor(n / 2) + 1;
  const members: Member<Cmd, Res, SM>[] = mapPacked(nodes, (node, id) => ({
    id,
    node,
    rand: streams.stream(`election:${node.name}`),
    term: 0,
    votedFor: null,
    log: [{ term: 0, cmd: null }],
    sm: spec.init(),
    lastApplied: 0,
    role: "follower",
    leaderId: null,
    commitIndex: 0,
    votes: new Set(),
    nextIndex: [],
    matchIndex: [],
    probing: [],
    sentSinceTick: [],
    heardFrom: mapPacked(nodes, () => false),
    heardCount: 0,
    electionTimer: null,
    electionTimeoutMs: timings.electionMs,
    electionDeadline: 0,
    heartbeatTimer: null,
    quorumTimer: null,
    pending: [],
    lessor: null,
    lessorDue: Number.POSITIVE_INFINITY,
    expiring: new Set(),
  }));
  /** Per member: the watches waiting for a change to its applied state. */
  const watches: Watch<SM>[][] = mapPacked(members, () => []);

  const lastIndex = (m: Member<Cmd, Res, SM>): number => m.log.length - 1;
  const mono = (m: Member<Cmd, Res, SM>): number => monoAt(m.node.clock, m.node.core.now);

  const stopTimer = (t: Timer | null): null => {
    if (t !== null) cancelTimer(t);
    return null;
  };

  /** Draws a new election timeout and restarts the countdown (becoming follower or candidate). */
  function resetElectionTimer(m: Member<Cmd, Res, SM>): void {
    m.electionTimeoutMs = timings.electionMs + m.rand() * timings.electionMs;
    touchElectionTimer(m);
  }

  /** Restarts the countdown with the current timeout (heard from the leader, granted a vote). */
  function touchElectionTimer(m: Member<Cmd, Res, SM>): void {
    m.electionDeadline = mono(m) + m.electionTimeoutMs;
    const t = m.electionTimer;
    if (t !== null && t.deadlineMono <= m.electionDeadline) return; // it re-arms when due
    stopTimer(t);
    armElectionTimer(m, m.electionTimeoutMs);
  }

  function armElectionTimer(m: Member<Cmd, Res, SM>, delayMs: number): void {
    const t: Timer = setTimer(m.node, delayMs, () => electionTimerDue(m, t));
    m.electionTimer = t;
  }

  function electionTimerDue(m: Member<Cmd, Res, SM>, t: Timer): void {
    // A timer replaced while it waited out a pause is stale.
    if (m.electionTimer !== t) return;
    m.electionTimer = null;
    const left = m.electionDeadline - mono(m);
    // Under clock drift, mono → true time → mono rounds, and a timer due at the deadline can
    // read a hair before it: re-armed for that hair, it would fire at the same true time
    // forever. Anything under a nanosecond counts as due.
    if (left > DUE_WITHIN_MS) armElectionTimer(m, left);
    else startElection(m);
  }

  function failPending(m: Member<Cmd, Res, SM>): void {
    const pending = m.pending;
    m.pending = [];
    for (const p of pending) p.answer(p.arg as never, LEADER_CHANGED);
  }

  function stepDown(m: Member<Cmd, Res, SM>, term: number, leaderId: number | null): void {
    const wasLeader = m.role === "leader";
    if (term > m.term) {
      m.term = term;
      m.votedFor = null;
    }
    m.role = "follower";
    m.leaderId = leaderId;
    if (wasLeader) {
      m.heartbeatTimer = stopTimer(m.heartbeatTimer);
      m.quorumTimer = stopTimer(m.quorumTimer);
      m.lessor = null;
      m.expiring.clear();
      failPending(m);
    }
    resetElectionTimer(m);
  }

  function startElection(m: Member<Cmd, Res, SM>): void {
    m.electionTimer = null;
    if (m.role === "leader") return;
    m.term++;
    m.role = "candidate";
    m.votedFor = m.id;
    m.leaderId = null;
    m.votes = new Set([m.id]);
    resetElectionTimer(m);
    if (m.votes.size >= majority) {
      becomeLeader(m);
      return;
    }
    const term = m.term;
    const lastLogIndex = lastIndex(m);
    const lastLogTerm = m.log[lastLogIndex]!.term;
    for (const peer of members) {
      if (peer === m) continue;
      sendTo(m, peer, () => onRequestVote(peer, m.id, term, lastLogIndex, lastLogTerm));
    }
  }

  function onRequestVote(
    m: Member<Cmd, Res, SM>,
    candidate: number,
    term: number,
    lastLogIndex: number,
    lastLogTerm: number,
  ): void {
    if (term > m.term) stepDown(m, term, null);
    const myLastTerm = m.log[lastIndex(m)]!.term;
    const upToDate = lastLogTerm > myLastTerm || (lastLogTerm === myLastTerm && lastLogIndex >= lastIndex(m));
    const granted = term === m.term && (m.votedFor === null || m.votedFor === candidate) && upToDate;
    if (granted) {
      m.votedFor = candidate;
      touchElectionTimer(m);
    }
    const replyTerm = m.term;
    const c = members[candidate]!;
    sendTo(m, c, () => onVoteReply(c, m.id, replyTerm, granted));
  }

  function onVoteReply(m: Member<Cmd, Res, SM>, voter: number, term: number, granted: boolean): void {
    if (term > m.term) {
      stepDown(m, term, null);
      return;
    }
    if (m.role !== "candidate" || term !== m.term || !granted) return;
    m.votes.add(voter);
    if (m.votes.size >= majority) becomeLeader(m);
  }

  function becomeLeader(m: Member<Cmd, Res, SM>): void {
    m.role = "leader";
    m.leaderId = m.id;
    m.electionTimer = stopTimer(m.electionTimer);
    m.log.push({ term: m.term, cmd: null });
    const next = lastIndex(m);
    m.nextIndex = mapPacked(members, () => next);
    m.matchIndex = mapPacked(members, () => 0);
    m.probing = mapPacked(members, () => true);
    m.sentSinceTick = mapPacked(members, () => false);
    m.matchIndex[m.id] = lastIndex(m);
    m.heardFrom.fill(false);
    m.heardCount = 0;
    m.lessor = null;
    m.expiring.clear();
    heartbeat(m);
    m.quorumTimer = setTimerWith(m.node, timings.electionMs, checkQuorum, m);
    advanceCommit(m);
  }

  function heartbeat(m: Member<Cmd, Res, SM>): void {
    m.heartbeatTimer = null;
    if (m.role !== "leader") return;
    for (const peer of members) {
      if (peer === m) continue;
      if (!m.sentSinceTick[peer.id]) sendAppend(m, peer.id);
      m.sentSinceTick[peer.id] = false;
    }
    expireLeases(m);
    m.heartbeatTimer = setTimerWith(m.node, timings.heartbeatMs, heartbeat, m);
  }

  function checkQuorum(m: Member<Cmd, Res, SM>): void {
    m.quorumTimer = null;
    if (m.role !== "leader") return;
    if (m.heardCount + 1 < majority) {
      stepDown(m, m.term, null);
      return;
    }
    m.heardFrom.fill(false);
    m.heardCount = 0;
    m.quorumTimer = setTimerWith(m.node, timings.electionMs, checkQuorum, m);
  }

  /** Sends the entries from nextIndex on (none: a heartbeat); in replicate state, moves nextIndex past them. */
  function sendAppend(m: Member<Cmd, Res, SM>, peerId: number): void {
    const peer = members[peerId]!;
    const prevIndex = m.nextIndex[peerId]! - 1;
    const prevTerm = m.log[prevIndex]!.term;
    const count = Math.min(m.log.length - (prevIndex + 1), MAX_BATCH);
    const term = m.term;
    const commit = m.commitIndex;
    if (!m.probing[peerId]) m.nextIndex[peerId] = prevIndex + 1 + count;
    m.sentSinceTick[peerId] = true;
    const msg: AppendMsg<Cmd> = {
      handle: handleAppend,
      refuse: null,
      to: peer.id,
      leader: m.id,
      term,
      prevIndex,
      prevTerm,
      log: m.log,
      count,
      commit,
    };
    send(net, links[m.id]![peer.id]!, msg);
  }

  function handleAppend(msg: AppendMsg<Cmd>): void {
    onAppend(members[msg.to]!, msg);
  }

  function handleAppendReply(msg: AppendReplyMsg): void {
    onAppendReply(members[msg.to]!, msg.from, msg.term, msg.success, msg.match, msg.prevIndex);
  }

  /**
   * Tells followers the new commit index at once, as etcd (bcastAppend) and ZooKeeper (COMMIT)
   * do, up to what each is known to hold (its matchIndex: those entries are the leader's).
   * Sent only to followers with a watch waiting: nothing else reads a follower's applied state
   * before its next append, and a notice changes nothing else (no timer, no reply).
   */
  function noticeCommit(m: Member<Cmd, Res, SM>): void {
    for (const peer of members) {
      if (peer === m || watches[peer.id]!.length === 0) continue;
      const upTo = Math.min(m.commitIndex, m.matchIndex[peer.id]!);
      if (upTo <= 0) continue;
      const msg: CommitNoticeMsg = {
        handle: handleCommitNotice,
        refuse: null,
        to: peer.id,
        leader: m.id,
        term: m.term,
        upTo,
      };
      send(net, links[m.id]![peer.id]!, msg);
    }
  }

  function handleCommitNotice(msg: CommitNoticeMsg): void {
    const f = members[msg.to]!;
    if (
      f.role !== "follower" ||
      f.term !== msg.term ||
      f.leaderId !== msg.leader ||
      msg.upTo <= f.commitIndex
    )
      return;
    f.commitIndex = Math.min(msg.upTo, lastIndex(f));
    applyCommitted(f);
  }

  /** Sends new entries to every follower in replicate state (a follower being probed waits). */
  function replicate(m: Member<Cmd, Res, SM>): void {
    for (const peer of members) {
      if (peer !== m && !m.probing[peer.id] && m.nextIndex[peer.id]! <= lastIndex(m)) sendAppend(m, peer.id);
    }
  }

  function onAppend(m: Member<Cmd, Res, SM>, msg: AppendMsg<Cmd>): void {
    const { leader, term, prevIndex, count } = msg;
    if (term < m.term) {
      replyAppend(m, leader, false, 0, prevIndex);
      return;
    }
    if (term > m.term || m.role !== "follower" || m.leaderId !== leader) stepDown(m, term, leader);
    else touchElectionTimer(m);
    if (prevIndex > lastIndex(m) || m.log[prevIndex]!.term !== msg.prevTerm) {
      replyAppend(m, leader, false, Math.min(prevIndex - 1, lastIndex(m)), prevIndex);
      return;
    }
    for (let idx = prevIndex + 1; idx <= prevIndex + count; idx++) {
      const entry = msg.log[idx]!;
      const existing = m.log[idx];
      if (existing !== undefined && existing.term === entry.term) continue;
      if (existing !== undefined) m.log = m.log.slice(0, idx);
      m.log.push(entry);
    }
    const matched = prevIndex + count;
    const newCommit = Math.min(msg.commit, matched);
    if (newCommit > m.commitIndex) {
      m.commitIndex = newCommit;
      applyCommitted(m);
    }
    replyAppend(m, leader, true, matched, prevIndex);
  }

  function replyAppend(
    m: Member<Cmd, Res, SM>,
    leader: number,
    success: boolean,
    match: number,
    prevIndex: number,
  ): void {
    const msg: AppendReplyMsg = {
      handle: handleAppendReply,
      refuse: null,
      to: leader,
      from: m.id,
      term: m.term,
      success,
      match,
      prevIndex,
    };
    send(net, links[m.id]![leader]!, msg);
  }

  function onAppendReply(
    m: Member<Cmd, Res, SM>,
    from: number,
    term: number,
    success: boolean,
    match: number,
    prevIndex: number,
  ): void {
    if (term > m.term) {
      stepDown(m, term, null);
      return;
    }
    if (m.role !== "leader" || term !== m.term) return;
    if (!m.heardFrom[from]) {
      m.heardFrom[from] = true;
      m.heardCount++;
    }
    if (success) {
      if (match > m.matchIndex[from]!) m.matchIndex[from] = match;
      m.nextIndex[from] = Math.max(m.nextIndex[from]!, match + 1);
      m.probing[from] = false;
      advanceCommit(m);
      if (m.nextIndex[from]! <= lastIndex(m)) sendAppend(m, from);
      return;
    }
    // A rejection of an append sent before the current probe is stale: the probe answers it.
    if (m.probing[from] && prevIndex !== m.nextIndex[from]! - 1) return;
    m.probing[from] = true;
    m.nextIndex[from] = Math.max(1, Math.min(prevIndex, match + 1));
    sendAppend(m, from);
  }

  function advanceCommit(m: Member<Cmd, Res, SM>): void {
    for (let idx = lastIndex(m); idx > m.commitIndex; idx--) {
      if (m.log[idx]!.term !== m.term) break;
      let acks = 0;
      for (const match of m.matchIndex) if (match >= idx) acks++;
      if (acks >= majority) {
        m.commitIndex = idx;
        applyCommitted(m);
        if (m.role === "leader") noticeCommit(m);
        return;
      }
    }
  }

  function applyCommitted(m: Member<Cmd, Res, SM>): void {
    while (m.lastApplied < m.commitIndex) {
      const index = ++m.lastApplied;
      const entry = m.log[index]!;
      if (entry.cmd === null) {
        if (m.role === "leader" && entry.term === m.term && m.lessor === null) promoteLessor(m);
        continue;
      }
      const readOnly = spec.isReadOnly(entry.cmd);
      if (readOnly && m.role !== "leader") continue;
      const res = spec.apply(m.sm, entry.cmd);
      if (!readOnly && watches[m.id]!.length > 0) checkWatches(m);
      if (m.role === "leader") trackLease(m, res);
      const p = m.pending[0];
      if (p !== undefined && p.index === index) {
        m.pending.shift();
        p.answer(p.arg as never, p.term === entry.term ? { kind: "done", value: res } : LEADER_CHANGED);
      }
    }
  }

  /** Notifies the watches whose condition now holds; drops those the client gave up on. */
  function checkWatches(m: Member<Cmd, Res, SM>): void {
    const now = mono(m);
    const list = watches[m.id]!;
    // Compacted in place: a notification only sends a message, it cannot touch the list.
    let kept = 0;
    for (let i = 0; i < list.length; i++) {
      const w = list[i]!;
      if (w.untilMono < now) continue;
      if (w.seen(m.sm)) w.notify(w.arg as never);
      else list[kept++] = w;
    }
    list.length = kept;
  }

  function promoteLessor(m: Member<Cmd, Res, SM>): void {
    const now = mono(m);
    m.lessor = new Map();
    m.lessorDue = Number.POSITIVE_INFINITY;
    for (const [id, ttl] of spec.leases(m.sm)) setLeaseDeadline(m, m.lessor, id, now + ttl);
  }

  function setLeaseDeadline(
    m: Member<Cmd, Res, SM>,
    lessor: Map<string, number>,
    id: string,
    deadline: number,
  ): void {
    lessor.set(id, deadline);
    if (deadline < m.lessorDue) m.lessorDue = deadline;
  }

  function trackLease(m: Member<Cmd, Res, SM>, res: Res): void {
    if (m.lessor === null) return;
    const ev = spec.leaseEvent(res);
    if (ev === null) return;
    const id = spec.leaseId(res);
    if (ev === "refresh") {
      setLeaseDeadline(m, m.lessor, id, mono(m) + spec.leaseLifeMs(res));
    } else {
      m.lessor.delete(id);
      m.expiring.delete(id);
    }
  }

  function expireLeases(m: Member<Cmd, Res, SM>): void {
    if (m.lessor === null) return;
    const now = mono(m);
    if (now < m.lessorDue) return;
    // Recomputed while looking; a deadline set meanwhile (by a proposal that commits at once) lowers it too.
    m.lessorDue = Number.POSITIVE_INFINITY;
    let due = Number.POSITIVE_INFINITY;
    for (const [id, deadline] of m.lessor) {
      if (deadline < due) due = deadline;
      if (deadline > now || m.expiring.has(id)) continue;
      m.expiring.add(id);
      propose(m, spec.expire(id), null, null);
    }
    if (due < m.lessorDue) m.lessorDue = due;
  }

  function renewOutsideLog(m: Member<Cmd, Res, SM>, cmd: Cmd, answer: Answer<Res>, arg: unknown): void {
    const res = spec.apply(m.sm, cmd);
    trackLease(m, res);
    answer(arg as never, { kind: "done", value: res });
  }

  /** A client request at the leader `m`: a renewal or a local read at once, anything else through the log. */
  function serveAtLeader(m: Member<Cmd, Res, SM>, cmd: Cmd, answer: Answer<Res>, arg: unknown): void {
    if (m.lessor !== null && spec.isRenewal(cmd)) renewOutsideLog(m, cmd, answer, arg);
    else if (m.lessor !== null && spec.isLocalRead(cmd))
      answer(arg as never, { kind: "done", value: spec.apply(m.sm, cmd) });
    else propose(m, cmd, answer, arg);
  }

  /**
   * etcd's forwarding: the follower `via` sends the request to the leader it knows and relays
   * the answer to the client. One message object makes the trip there and back.
   */
  function forwardToLeader(
    via: Member<Cmd, Res, SM>,
    leader: Member<Cmd, Res, SM>,
    cmd: Cmd,
    answer: Answer<Res>,
    arg: unknown,
  ): void {
    const msg: ForwardMsg<Cmd, Res, SM> = {
      handle: forwardArrived,
      refuse: null,
      via,
      leader,
      cmd,
      answer,
      arg,
      result: null,
    };
    send(net, links[via.id]![leader.id]!, msg);
  }

  function forwardArrived(msg: ForwardMsg<Cmd, Res, SM>): void {
    const { leader } = msg;
    if (leader.role === "leader") serveAtLeader(leader, msg.cmd, forwardAnswered as Answer<Res>, msg);
    else forwardAnswered(msg, { kind: "not-leader", leader: leader.leaderId });
  }

  function forwardAnswered(msg: ForwardMsg<Cmd, Res, SM>, s: Submitted<Res>): void {
    msg.result = s;
    msg.handle = relayArrived;
    send(net, links[msg.leader.id]![msg.via.id]!, msg);
  }

  /** Appends `cmd` to the leader's log; `answer(arg, …)` once it is applied, unless `answer` is null. */
  function propose(m: Member<Cmd, Res, SM>, cmd: Cmd, answer: Answer<Res> | null, arg: unknown): void {
    m.log.push({ term: m.term, cmd });
    const index = lastIndex(m);
    m.matchIndex[m.id] = index;
    if (answer !== null) m.pending.push({ index, term: m.term, answer, arg });
    replicate(m);
    advanceCommit(m);
  }

  // The run starts with a settled cluster, as a real one is before clients connect: member 0
  // leads term 1 with everyone's vote.
  for (const m of members) {
    m.term = 1;
    m.votedFor = 0;
    m.leaderId = 0;
  }
  for (const m of members) {
    m.node.onCrash = () => {
      // Timers are gone with the process; uncommitted requests die with their connections.
      m.role = "follower";
      m.leaderId = null;
      m.commitIndex = m.lastApplied;
      m.electionTimer = m.heartbeatTimer = m.quorumTimer = null;
      m.pending = [];
      m.lessor = null;
      m.expiring.clear();
      watches[m.id] = [];
    };
    m.node.onRestart = () => resetElectionTimer(m);
    if (m.id !== 0) resetElectionTimer(m);
  }
  becomeLeader(members[0]!);

  return {
    members,
    leader() {
      let best: Member<Cmd, Res, SM> | null = null;
      for (const m of members) {
        if (m.role === "leader" && !m.node.crashed && (best === null || m.term > best.term)) best = m;
      }
      return best?.node ?? null;
    },
    submit(id, cmd, answer, arg) {
      const m = members[id]!;
      if (m.role === "leader") serveAtLeader(m, cmd, answer as Answer<Res>, arg);
      else if (routing === "forward" && m.leaderId !== null && m.leaderId !== id)
        forwardToLeader(m, members[m.leaderId]!, cmd, answer as Answer<Res>, arg);
      else answer(arg, { kind: "not-leader", leader: m.leaderId });
    },
    watch(id, seen, waitMs, notify, arg) {
      const m = members[id]!;
      if (seen(m.sm)) notify(arg);
      else
        watches[id]!.push({ seen, notify: notify as Watch<SM>["notify"], arg, untilMono: mono(m) + waitMs });
    },
  };
}
