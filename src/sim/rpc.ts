/**
 * Request/response calls from a client to a node over the simulated network.
 *
 * The request travels to the server node, where `serve` runs and answers through `respond`
 * (at once for a Redis-like node, after a commit for a consensus member); the answer travels
 * back. The caller's timer, on its own monotonic clock, turns silence into a `timeout` error
 * ("may or may not have happened"); a reset from a crashed node becomes `unreachable`
 * ("certainly did not happen"). Whichever comes first settles the call; later ones are
 * ignored.
 */
import type { CallResult } from "../env/env.js";
import { type Link, linkBetween, type Network, send } from "./network.js";
import { armTimer, cancelTimer, type Delivery, type SimNode, type Timer } from "./node.js";

export type Respond<T> = (result: CallResult<T>) => void;

/** The two directions between a client and a server, looked up once. */
export interface Channel {
  readonly net: Network;
  readonly out: Link;
  readonly back: Link;
}

export function channel(net: Network, client: SimNode, server: SimNode): Channel {
  return { net, out: linkBetween(net, client, server), back: linkBetween(net, server, client) };
}

/**
 * One call in flight. It is its own timeout timer and its own network message (the request,
 * then the reply or refusal: `handle`/`refuse` are switched as it travels), so a call
 * allocates this object, its promise and the reply closure, and nothing per hop.
 */
interface PendingCall<T> extends Timer, Delivery {
  readonly ch: Channel;
  readonly serve: (respond: Respond<T>) => void;
  readonly resolve: (r: CallResult<T>) => void;
  /** The server's answer, once it responded. */
  result: CallResult<T> | null;
  settled: boolean;
}

function settle<T>(c: PendingCall<T>, r: CallResult<T>): void {
  if (c.settled) return;
  c.settled = true;
  cancelTimer(c);
  c.ch.net.core.settled = true;
  c.resolve(r);
}

function serveRequest<T>(c: PendingCall<T>): void {
  c.serve((r) => {
    if (c.result !== null) return; // a server answers once
    c.result = r;
    c.handle = deliverReply;
    c.refuse = null;
    send(c.ch.net, c.ch.back, c);
  });
}

function deliverReply<T>(c: PendingCall<T>): void {
  settle(c, c.result!);
}

function refuseRequest<T>(c: PendingCall<T>): void {
  c.handle = deliverRefusal;
  c.refuse = null;
  send(c.ch.net, c.ch.back, c);
}

function deliverRefusal<T>(c: PendingCall<T>): void {
  settle(c, {
    ok: false,
    error: { kind: "unreachable", node: c.ch.out.to.name, detail: "connection refused" },
  });
}

function timeOut<T>(c: PendingCall<T>): void {
  settle(c, { ok: false, error: { kind: "timeout", node: c.ch.out.to.name } });
}

export function call<T>(
  ch: Channel,
  timeoutMs: number,
  serve: (respond: Respond<T>) => void,
): Promise<CallResult<T>> {
  return new Promise((resolve) => {
    const c: PendingCall<T> = {
      // Timer
      node: ch.out.from,
      deadlineMono: 0,
      fire: timeOut as (arg: never) => void,
      arg: null,
      event: null,
      prev: null,
      next: null,
      // Delivery (the request)
      handle: serveRequest as (m: never) => void,
      refuse: refuseRequest as (m: never) => void,
      ch,
      serve,
      resolve,
      result: null,
      settled: false,
    };
    c.arg = c;
    armTimer(c, timeoutMs);
    send(ch.net, ch.out, c);
  });
}
