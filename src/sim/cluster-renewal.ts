/**
 * A client library's background renewals (etcd lease keep-alives, ZooKeeper pings), over a
 * client's cluster session (consensus-client.ts). They are library code, not the lock
 * algorithm's: a timer on the client's monotonic clock sends one every interval, answered or
 * not — nothing waits for them, so they resume no client code. An etcd session sends each to a
 * member drawn at random, once (etcd3 opens each keep-alive on a random member, and the member
 * forwards it to the leader); a ZooKeeper session to the member it prefers, redirected at once
 * if that names another leader, or to the next member if it refused.
 * They freeze with the client when it is paused and die with it.
 */
import type { Renewal } from "../env/env.js";
import { type ClusterSession, channelTo, firstMember } from "./consensus-client.js";
import { type Network, send } from "./network.js";
import { armTimer, cancelTimer, type Delivery, type Timer } from "./node.js";
import type { Cluster, Submitted } from "./servers/raft.js";

/** The loop is its own timer (armed again every interval: one object for all its ticks). */
interface RenewalLoop<Cmd, Res> extends Timer {
  readonly net: Network;
  readonly cluster: Cluster<Cmd, Res, unknown>;
  readonly session: ClusterSession;
  readonly cmd: Cmd;
  readonly intervalMs: number;
  /** False once an answer says the lease or session is gone. */
  readonly alive: (res: Res) => boolean;
  stopped: boolean;
}

/** One renewal on the way: the request, then its answer or refusal (`handle` is switched). */
interface RenewalMsg<Cmd, Res> extends Delivery {
  readonly loop: RenewalLoop<Cmd, Res>;
  readonly member: number;
  /** Members tried before this one for the same tick. */
  readonly hops: number;
  answer: Submitted<Res> | null;
}

/** Starts renewing with `cmd` every `intervalMs` (see the header); `alive` reads an answer. */
export function renewInBackground<Cmd, Res>(
  net: Network,
  cluster: Cluster<Cmd, Res, unknown>,
  session: ClusterSession,
  cmd: Cmd,
  intervalMs: number,
  alive: (res: Res) => boolean,
): Renewal {
  const loop: RenewalLoop<Cmd, Res> = {
    // Timer
    node: session.client,
    deadlineMono: 0,
    fire: renewalDue as (arg: never) => void,
    arg: null,
    list: null,
    prev: null,
    next: null,
    net,
    cluster,
    session,
    cmd,
    intervalMs,
    alive,
    stopped: false,
  };
  loop.arg = loop;
  armTimer(loop, intervalMs);
  return {
    stop() {
      stopRenewal(loop);
    },
  };
}

function stopRenewal<Cmd, Res>(loop: RenewalLoop<Cmd, Res>): void {
  loop.stopped = true;
  cancelTimer(loop);
}

function renewalDue<Cmd, Res>(loop: RenewalLoop<Cmd, Res>): void {
  // A timer that came due while the client was paused runs on resume even if the client
  // stopped the renewal in between.
  if (loop.stopped) return;
  armTimer(loop, loop.intervalMs);
  sendRenewal(loop, firstMember(loop.session), 0);
}

function sendRenewal<Cmd, Res>(loop: RenewalLoop<Cmd, Res>, member: number, hops: number): void {
  const msg: RenewalMsg<Cmd, Res> = {
    handle: serveRenewal as (m: never) => void,
    refuse: refuseRenewal as (m: never) => void,
    loop,
    member,
    hops,
    answer: null,
  };
  send(loop.net, channelTo(loop.session, member).out, msg);
}

function serveRenewal<Cmd, Res>(msg: RenewalMsg<Cmd, Res>): void {
  const { loop } = msg;
  loop.cluster.submit(msg.member, loop.cmd, answerRenewal, msg);
}

function answerRenewal<Cmd, Res>(msg: RenewalMsg<Cmd, Res>, s: Submitted<Res>): void {
  msg.answer = s;
  msg.handle = renewalAnswered as (m: never) => void;
  send(msg.loop.net, channelTo(msg.loop.session, msg.member).back, msg);
}

function refuseRenewal<Cmd, Res>(msg: RenewalMsg<Cmd, Res>): void {
  msg.handle = renewalRefused as (m: never) => void;
  msg.refuse = null;
  send(msg.loop.net, channelTo(msg.loop.session, msg.member).back, msg);
}

function renewalAnswered<Cmd, Res>(msg: RenewalMsg<Cmd, Res>): void {
  const { loop } = msg;
  const s = msg.answer!;
  if (loop.stopped) return;
  if (s.kind === "done") {
    loop.session.preferred = msg.member;
    if (!loop.alive(s.value)) stopRenewal(loop);
  } else if (
    loop.session.pick === null &&
    s.kind === "not-leader" &&
    s.leader !== null &&
    s.leader !== msg.member
  ) {
    if (msg.hops + 1 < loop.cluster.members.length) sendRenewal(loop, s.leader, msg.hops + 1);
  }
}

function renewalRefused<Cmd, Res>(msg: RenewalMsg<Cmd, Res>): void {
  const { loop } = msg;
  const n = loop.cluster.members.length;
  if (!loop.stopped && loop.session.pick === null && msg.hops + 1 < n)
    sendRenewal(loop, (msg.member + 1) % n, msg.hops + 1);
}
