/**
 * Request/response calls from a client to a node over the simulated network.
 *
 * The request travels to the server node, where `serve` runs and answers with `respond`
 * (at once for a Redis-like node, after a commit for a consensus member); the answer travels
 * back. The caller's timer, on its own monotonic clock, turns silence into a `timeout` error
 * ("may or may not have happened"); a reset from a crashed node becomes `unreachable`
 * ("certainly did not happen"). Whichever comes first settles the call; later ones are
 * ignored.
 */
import type { CallResult } from "../env/env.js";
import { type CallBatch, joinBatch, settleClient } from "./batch.js";
import { notRun, type OwnEvent } from "./event-queue.js";
import { type Link, linkBetween, type Network, sendAsOwnEvent } from "./network.js";
import { armTimer, armTimerBehind, cancelTimer, type Delivery, type SimNode, type Timer } from "./node.js";
import { SimOp } from "./sim-op.js";

/**
 * Where a server's answer to one call goes, perhaps later: `respond(to, result)`. (It is the
 * call itself, so serving a call allocates no callback.)
 */
export interface Responder<T> {
  readonly answers?: T;
}

/**
 * Answers the call `to` stands for. A server answers each call at most once (raft.ts: a pending
 * entry, a forwarded request and a watch are each dropped as they are answered): once the
 * answer has arrived the call is reused (`spare`), and a later one would go to the call reusing
 * it. (A second answer before that is ignored.)
 */
export function respond<T>(to: Responder<T>, result: CallResult<T>): void {
  reply(to as PendingCall<T>, result);
}

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
 * One call in flight. It is its own timeout timer, its own network message (the request,
 * then the reply or refusal: `handle`/`refuse` are switched as it travels) and that message's
 * agenda event, so a call allocates this object (and at most one SimOp), and nothing per
 * hop. The server side is either `serve(settledArg, to)` (answers with `respond(to, …)`,
 * perhaps later) or `answer(server, argA, argB, argC)` (answers at once, without allocating
 * a callback). The caller
 * learns the result in one of three ways, fixed when the call is made: `onSettled` (library
 * code, no wait: `callThen`), its place in a `group` (a fan-out, one op for all:
 * `callAnsweredEach`), or its own op (`callAnswered`). The fields are
 * flat rather than a union so that every call has one shape for V8.
 */
interface PendingCall<T> extends Timer, Delivery, OwnEvent {
  readonly ch: Channel;
  readonly serve: ((arg: never, to: Responder<T>) => void) | null;
  readonly answer: ((server: never, a: never, b: never, c: never) => CallResult<T>) | null;
  readonly server: unknown;
  readonly argA: unknown;
  readonly argB: unknown;
  readonly argC: unknown;
  /** What the client waits on, for a lone call (`callAnswered`). */
  op: SimOp<CallResult<T>> | null;
  /** For `callThen`: run with the result instead of settling an op. */
  onSettled: ((r: CallResult<T>, arg: never) => void) | null;
  settledArg: unknown;
  /** The fan-out this call is part of (its answer goes in `groupIndex`), or null for a lone call. */
  group: CallGroup | null;
  groupIndex: number;
  /** The client's batch this call belongs to (batch.ts). */
  readonly batch: CallBatch;
  /** The server's answer, once it responded. */
  result: CallResult<T> | null;
  settled: boolean;
}

/** Calls made together to several servers, answered with one op once all have settled. */
interface CallGroup {
  open: number;
  readonly results: unknown[];
  readonly op: SimOp<unknown[]>;
}

function settle<T>(c: PendingCall<T>, r: CallResult<T>): void {
  if (c.settled) return;
  c.settled = true;
  cancelTimer(c);
  if (c.onSettled !== null) {
    c.onSettled(r, c.settledArg as never);
    return;
  }
  const group = c.group;
  if (group === null) {
    settleClient(c.node, c.batch, c.op!, r);
    return;
  }
  group.results[c.groupIndex] = r;
  if (--group.open === 0) settleClient(c.node, c.batch, group.op, group.results);
}

function reply<T>(c: PendingCall<T>, r: CallResult<T>): void {
  if (c.result !== null) return; // a server answers once
  c.result = r;
  c.handle = deliverReply as (m: never) => void;
  c.refuse = null;
  sendAsOwnEvent(c.ch.net, c.ch.back, c);
}

function serveRequest<T>(c: PendingCall<T>): void {
  if (c.answer !== null)
    reply(c, c.answer(c.server as never, c.argA as never, c.argB as never, c.argC as never));
  else c.serve!(c.settledArg as never, c as Responder<T>);
}

function deliverReply<T>(c: PendingCall<T>): void {
  // Its timeout is pending (settle cancels it: it never fires) or already ran: nothing refers
  // to the call after this but its caller's op, so it can be reused. (A timeout that came due
  // while the client was paused waits in an agenda event: that call is left alone.)
  const done = c.list !== null || c.settled;
  settle(c, c.result!);
  if (done) spare(c);
}

function refuseRequest<T>(c: PendingCall<T>): void {
  c.handle = deliverRefusal as (m: never) => void;
  c.refuse = null;
  sendAsOwnEvent(c.ch.net, c.ch.back, c);
}

function deliverRefusal<T>(c: PendingCall<T>): void {
  const done = c.list !== null || c.settled;
  settle(c, {
    ok: false,
    error: { kind: "unreachable", node: c.ch.out.to.name, detail: "connection refused" },
  });
  if (done) spare(c);
}

/**
 * Keeps a call whose reply arrived for reuse (network.ts `spareCalls`): a call is the hot
 * path's one allocation, and Redlock makes thousands per run. Calls a server answers later
 * (`serve`: every hop of a consensus client's call) come here too, since a server answers a
 * call once (`respond`).
 */
const MAX_SPARES = 1024;

function spare<T>(c: PendingCall<T>): void {
  const net = c.ch.net;
  if (net.spareCount === MAX_SPARES) return;
  const w = c as Writable<PendingCall<unknown>>;
  w.server = w.argA = w.argB = w.argC = w.settledArg = undefined;
  w.op = null;
  w.group = null;
  w.result = null;
  w.a = w.b = null;
  // Written at the count rather than pushed and popped: `pop` shrinks an array's storage.
  net.spareCalls[net.spareCount++] = w;
}

function timeOut<T>(c: PendingCall<T>): void {
  settle(c, { ok: false, error: { kind: "timeout", node: c.ch.out.to.name } });
}

function start<T>(c: PendingCall<T>, timeoutMs: number): SimOp<CallResult<T>> {
  const op = new SimOp<CallResult<T>>(c.node.core);
  c.op = op;
  launch(c, timeoutMs);
  return op;
}

function launch<T>(c: PendingCall<T>, timeoutMs: number): void {
  c.arg = c;
  armTimer(c, timeoutMs);
  sendAsOwnEvent(c.ch.net, c.ch.out, c);
}

/** `launch` for the next call of a fan-out, sent right after `first` with the same timeout. */
function launchBehind<T>(c: PendingCall<T>, first: PendingCall<unknown>): void {
  c.arg = c;
  armTimerBehind(c, first);
  sendAsOwnEvent(c.ch.net, c.ch.out, c);
}

type Writable<T> = { -readonly [K in keyof T]: T[K] };

/** Never read: `callThen` calls settle through `onSettled`, outside any batch. */
const NO_BATCH: CallBatch = { open: 0 };

/**
 * A call made by simulated client-library code (consensus-client.ts) that handles the answer
 * itself — retries, redirects — before anything reaches the client's code: `onSettled(result,
 * arg)` runs inside the event that settles the call, with no op. The server side runs
 * `serve(arg, to)` and answers with `respond(to, result)`, at once or later.
 */
export function callThen<T, X>(
  ch: Channel,
  timeoutMs: number,
  serve: (arg: X, to: Responder<T>) => void,
  onSettled: (r: CallResult<T>, arg: X) => void,
  arg: X,
): void {
  const c = newCall<T>(
    ch,
    NO_BATCH,
    serve as PendingCall<T>["serve"],
    null,
    null,
    undefined,
    undefined,
    undefined,
  );
  c.onSettled = onSettled as PendingCall<T>["onSettled"];
  c.settledArg = arg;
  launch(c, timeoutMs);
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
): SimOp<CallResult<T>> {
  const batch = joinBatch(ch.out.from);
  return start(newCall<T>(ch, batch, null, answer as PendingCall<T>["answer"], server, a, b, c), timeoutMs);
}

/**
 * `callAnswered` to every server of `servers` (over `channels`, in the same order) with the
 * same arguments: one op for all the answers, in server order. The calls go out in that
 * order, exactly as one `callAnswered` per server would send them.
 */
export function callAnsweredEach<T, S, A, B, C>(
  channels: readonly Channel[],
  timeoutMs: number,
  answer: (server: S, a: A, b: B, c: C) => CallResult<T>,
  servers: readonly S[],
  a: A,
  b: B,
  c: C,
): SimOp<CallResult<T>[]> {
  const n = channels.length;
  const from = channels[0]?.out.from;
  if (from === undefined) throw new RangeError("callAnsweredEach: no servers to call");
  const batch = joinBatch(from);
  const op = new SimOp<CallResult<T>[]>(from.core);
  const group: CallGroup = { open: n, results: new Array<unknown>(n), op: op as SimOp<unknown[]> };
  let first: PendingCall<T> | null = null;
  for (let i = 0; i < n; i++) {
    const call = newCall<T>(
      channels[i]!,
      batch,
      null,
      answer as PendingCall<T>["answer"],
      servers[i],
      a,
      b,
      c,
    );
    call.group = group;
    call.groupIndex = i;
    // Their timeouts are alike: the first's deadline and list serve the others.
    if (first === null) {
      launch(call, timeoutMs);
      first = call;
    } else launchBehind(call, first as PendingCall<unknown>);
  }
  return op;
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
  const net = ch.net;
  if (net.spareCount > 0) {
    const reused = net.spareCalls[--net.spareCount] as Writable<PendingCall<T>>;
    net.spareCalls[net.spareCount] = null;
    reused.node = ch.out.from;
    reused.arg = null;
    reused.handle = serveRequest as (m: never) => void;
    reused.refuse = refuseRequest as (m: never) => void;
    reused.ch = ch;
    reused.serve = serve;
    reused.answer = answer;
    reused.server = server;
    reused.argA = a;
    reused.argB = b;
    reused.argC = c;
    reused.onSettled = null;
    reused.groupIndex = 0;
    reused.batch = batch;
    reused.settled = false;
    reused.run = notRun;
    return reused;
  }
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
    argA: a,
    argB: b,
    argC: c,
    op: null,
    onSettled: null,
    settledArg: undefined,
    group: null,
    groupIndex: 0,
    batch,
    result: null,
    settled: false,
    // OwnEvent: the request's agenda event, then the reply's (network.ts sendAsOwnEvent)
    seq: 0,
    run: notRun,
    a: null,
    b: null,
    index: -1,
  };
}
