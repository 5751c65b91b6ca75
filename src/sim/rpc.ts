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
import { type CallBatch, deferSettle, joinBatch, noteAction, settleMode } from "./batch.js";
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
 * allocates this object and its promise, and nothing per hop. The server side is either
 * `serve` (answers through a callback, perhaps later) or `answer(server, a, b, c)` (answers
 * at once, without allocating a callback).
 */
interface PendingCall<T> extends Timer, Delivery {
  readonly ch: Channel;
  readonly serve: ((respond: Respond<T>) => void) | null;
  readonly answer: ((server: never, a: never, b: never, c: never) => CallResult<T>) | null;
  readonly server: unknown;
  readonly a: unknown;
  readonly b: unknown;
  readonly c: unknown;
  resolve: (r: CallResult<T>) => void;
  /** The client's batch this call belongs to (batch.ts). */
  readonly batch: CallBatch;
  /** The server's answer, once it responded. */
  result: CallResult<T> | null;
  settled: boolean;
}

function settle<T>(c: PendingCall<T>, r: CallResult<T>): void {
  if (c.settled) return;
  c.settled = true;
  cancelTimer(c);
  const core = c.ch.net.core;
  switch (settleMode(c.node, c.batch)) {
    case "owe":
      c.resolve(r);
      return;
    case "drain-first":
      deferSettle(core, () => {
        core.settled = true;
        c.resolve(r);
      });
      return;
    default:
      core.settled = true;
      c.resolve(r);
  }
}

function reply<T>(c: PendingCall<T>, r: CallResult<T>): void {
  if (c.result !== null) return; // a server answers once
  c.result = r;
  c.handle = deliverReply as (m: never) => void;
  c.refuse = null;
  send(c.ch.net, c.ch.back, c);
}

function serveRequest<T>(c: PendingCall<T>): void {
  if (c.answer !== null) reply(c, c.answer(c.server as never, c.a as never, c.b as never, c.c as never));
  else c.serve!((r) => reply(c, r));
}

function deliverReply<T>(c: PendingCall<T>): void {
  settle(c, c.result!);
}

function refuseRequest<T>(c: PendingCall<T>): void {
  c.handle = deliverRefusal as (m: never) => void;
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

/** Takes the resolve function out of a promise executor without allocating a closure. */
let takenResolve: ((r: never) => void) | null = null;
const takeResolve = (resolve: (r: never) => void): void => {
  takenResolve = resolve;
};

function start<T>(c: PendingCall<T>, timeoutMs: number): Promise<CallResult<T>> {
  const p = new Promise<CallResult<T>>(takeResolve);
  c.resolve = takenResolve as (r: CallResult<T>) => void;
  takenResolve = null;
  c.arg = c;
  armTimer(c, timeoutMs);
  send(c.ch.net, c.ch.out, c);
  return p;
}

/** A call whose server side answers through `respond`, at once or later. */
export function call<T>(
  ch: Channel,
  timeoutMs: number,
  serve: (respond: Respond<T>) => void,
): Promise<CallResult<T>> {
  const solo: CallBatch = { open: 1 }; // served later, perhaps among other traffic: never batched
  noteAction(ch.out.from);
  return start(newCall<T>(ch, solo, serve, null, null, undefined, undefined, undefined), timeoutMs);
}

/** A call the server answers at once with `answer(server, a, b, c)`: the hot path. */
export function callAnswered<T, S, A, B, C>(
  ch: Channel,
  timeoutMs: number,
  answer: (server: S, a: A, b: B, c: C) => CallResult<T>,
  server: S,
  a: A,
  b: B,
  c: C,
): Promise<CallResult<T>> {
  const batch = joinBatch(ch.out.from);
  return start(newCall<T>(ch, batch, null, answer as PendingCall<T>["answer"], server, a, b, c), timeoutMs);
}

function newCall<T>(
  ch: Channel,
  batch: CallBatch,
  serve: PendingCall<T>["serve"],
  answer: PendingCall<T>["answer"],
  server: unknown,
  a: unknown,
  b: unknown,
  c: unknown,
): PendingCall<T> {
  return {
    // Timer
    node: ch.out.from,
    deadlineMono: 0,
    fire: timeOut as (arg: never) => void,
    arg: null,
    list: null,
    prev: null,
    next: null,
    // Delivery (the request)
    handle: serveRequest as (m: never) => void,
    refuse: refuseRequest as (m: never) => void,
    ch,
    serve,
    answer,
    server,
    a,
    b,
    c,
    resolve: noResolve,
    batch,
    result: null,
    settled: false,
  };
}

const noResolve = (): void => {};
