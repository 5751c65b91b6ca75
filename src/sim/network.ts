/**
 * The network between simulated nodes: directed links with latency drawn per message,
 * random loss, partitions (any set of links, one-way too) and added delay.
 *
 * - Latency is uniform in [min, max] ms, drawn from the link's own random stream; the draw
 *   happens for every message, lost or not, so that adding or removing a partition does not
 *   shift the latencies of later messages.
 * - Each link delivers in order (like the TCP connection a real client holds to a server): a
 *   message never overtakes an earlier one on the same link, so a delayed message also holds
 *   back the ones behind it.
 * - A message is lost if its link is cut when it is sent or when it would arrive (a partition
 *   also drops what is in flight), or with probability `lossRate`.
 * - Delay faults add `extraMs` to messages sent on a link while they are active.
 */
import type { OwnEvent } from "./event-queue.js";
import { type Delivery, deliver, type SimNode } from "./node.js";
import { mapPacked } from "./packed.js";
import { createRandomStreams, type Random, type RandomStreams } from "./rng.js";
import { atOwn, atWith, type SimCore } from "./scheduler.js";

export interface LinkSpec {
  latencyMs: { min: number; max: number };
  lossRate: number;
}

/** A directed link; look it up once with `linkBetween` and keep it. */
export interface Link {
  readonly net: Network;
  readonly from: SimNode;
  readonly to: SimNode;
  /**
   * The link's random stream, seeded on its first message: a world makes links for every pair
   * that may talk, and seeding costs more than most links' whole traffic. Streams are seeded by
   * name, so when one is made does not change its numbers.
   */
  rand: Random | null;
  /** How many active partitions cut this link. */
  cuts: number;
  /** Sum of the active delay faults' extra milliseconds. */
  extraMs: number;
  /** Arrival time of the last message sent on this link (for in-order delivery). */
  lastArrival: number;
}

export interface Network {
  readonly core: SimCore;
  readonly spec: LinkSpec;
  readonly streams: RandomStreams;
  readonly nodes: ReadonlyMap<string, SimNode>;
  /** links.get(from).get(to) */
  readonly links: Map<string, Map<string, Link>>;
  /** Messages sent and messages lost, for statistics. */
  sent: number;
  lost: number;
  /**
   * Calls over this network whose reply arrived, kept for reuse by rpc.ts: the first
   * `spareCount` entries. Per network, so that they go with their world: a pool shared by
   * every run would keep references into worlds that have ended.
   */
  readonly spareCalls: unknown[];
  spareCount: number;
}

export function createNetwork(
  core: SimCore,
  seed: number,
  spec: LinkSpec,
  nodes: ReadonlyMap<string, SimNode>,
): Network {
  return {
    core,
    spec,
    streams: createRandomStreams(seed),
    nodes,
    links: new Map(),
    sent: 0,
    lost: 0,
    spareCalls: [],
    spareCount: 0,
  };
}

export function linkBetween(net: Network, from: SimNode, to: SimNode): Link {
  let out = net.links.get(from.name);
  if (out === undefined) {
    out = new Map();
    net.links.set(from.name, out);
  }
  let l = out.get(to.name);
  if (l === undefined) {
    l = {
      net,
      from,
      to,
      rand: null,
      cuts: 0,
      extraMs: 0,
      lastArrival: 0,
    };
    out.set(to.name, l);
  }
  return l;
}

function linkByName(net: Network, from: string, to: string): Link | undefined {
  const a = net.nodes.get(from);
  const b = net.nodes.get(to);
  return a === undefined || b === undefined ? undefined : linkBetween(net, a, b);
}

function seedLink(net: Network, link: Link): Random {
  const rand = net.streams.stream(linkStreamName(link));
  link.rand = rand;
  return rand;
}

/**
 * Seeds every link made so far that has no stream yet, all at once (`RandomStreams.streams`):
 * the same numbers as seeding each on its first message, in a third of the time. Worth it for
 * links that will almost all carry messages (a world's clients and servers, once set up).
 */
export function seedLinks(net: Network): void {
  const unseeded: Link[] = [];
  for (const out of net.links.values()) for (const l of out.values()) if (l.rand === null) unseeded.push(l);
  if (unseeded.length < 2) return;
  const streams = net.streams.streams(mapPacked(unseeded, linkStreamName));
  unseeded.forEach((l, i) => {
    l.rand = streams[i]!;
  });
}

const linkStreamName = (link: Link): string => `link:${link.from.name}>${link.to.name}`;

/** `arrivalTime` of a message that is lost. */
const LOST = Number.NEGATIVE_INFINITY;

/**
 * Sends `message` over `link`: on arrival `message.handle(message)` runs at the receiving
 * node (or waits there while it is paused); `message.refuse(message)` runs if it is crashed
 * (the sender gets a reset). The handlers are read on arrival.
 */
export function send(net: Network, link: Link, message: Delivery): void {
  const arrival = arrivalTime(net, link);
  if (arrival !== LOST) atWith(net.core, arrival, arrive, link, message);
}

/**
 * `send` for a message that is its own agenda event (it is sent again only after it arrived,
 * as a call's request and then its reply are): no event object is allocated.
 */
export function sendAsOwnEvent(net: Network, link: Link, message: Delivery & OwnEvent): void {
  const arrival = arrivalTime(net, link);
  if (arrival !== LOST) atOwn(net.core, arrival, message, arrive, link, message);
}

/** When a message sent now on `link` arrives, or LOST (drawing its randomness either way). */
function arrivalTime(net: Network, link: Link): number {
  const { latencyMs, lossRate } = net.spec;
  const rand = link.rand ?? seedLink(net, link);
  const latency =
    latencyMs.max <= latencyMs.min ? latencyMs.min : latencyMs.min + rand() * (latencyMs.max - latencyMs.min);
  const dropped = lossRate > 0 && rand() < lossRate;
  net.sent++;
  if (dropped || link.cuts > 0) {
    net.lost++;
    return LOST;
  }
  let arrival = net.core.now + latency + link.extraMs;
  if (arrival < link.lastArrival) arrival = link.lastArrival;
  link.lastArrival = arrival;
  return arrival;
}

interface ThunkMessage extends Delivery {
  readonly thunk: () => void;
}

const runThunk = (m: ThunkMessage): void => m.thunk();

/** `send` for code that is not hot: run the closure `thunk` on arrival. */
export function sendThunk(net: Network, link: Link, thunk: () => void): void {
  const m: ThunkMessage = { handle: runThunk, refuse: null, thunk };
  send(net, link, m);
}

function arrive(link: Link, d: Delivery): void {
  if (link.cuts > 0) link.net.lost++;
  else deliver(link.to, d);
}

/** Cuts (delta = +1) or heals (delta = −1) the directed link from → to. */
export function cutLink(net: Network, from: string, to: string, delta: 1 | -1): void {
  const l = linkByName(net, from, to);
  if (l !== undefined) l.cuts += delta;
}

/** Adds (or with a negative value removes) extra delay on the directed link from → to. */
export function delayLink(net: Network, from: string, to: string, extraMs: number): void {
  const l = linkByName(net, from, to);
  if (l !== undefined) l.extraMs += extraMs;
}
