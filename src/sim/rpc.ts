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
import { cancelTimer, type SimNode, setTimerWith, type Timer } from "./node.js";

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

interface PendingCall<T> {
  readonly ch: Channel;
  readonly serve: (respond: Respond<T>) => void;
  readonly resolve: (r: CallResult<T>) => void;
  timer: Timer | null;
  settled: boolean;
}

function settle<T>(c: PendingCall<T>, r: CallResult<T>): void {
  if (c.settled) return;
  c.settled = true;
  if (c.timer !== null) cancelTimer(c.timer);
  c.ch.net.core.settled = true;
  c.resolve(r);
}

function serveRequest<T>(c: PendingCall<T>): void {
  c.serve((r) => send(c.ch.net, c.ch.back, deliverReply, null, { c, r }));
}

function deliverReply<T>(m: { c: PendingCall<T>; r: CallResult<T> }): void {
  settle(m.c, m.r);
}

function refuseRequest<T>(c: PendingCall<T>): void {
  send(c.ch.net, c.ch.back, deliverRefusal, null, c);
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
    const c: PendingCall<T> = { ch, serve, resolve, timer: null, settled: false };
    c.timer = setTimerWith(ch.out.from, timeoutMs, timeOut, c);
    send(ch.net, ch.out, serveRequest, refuseRequest, c);
  });
}
