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
import type { SimNode } from "./node.js";
import { deliver } from "./node.js";
import { createRandomStreams, type Random, type RandomStreams } from "./rng.js";
import { at, type SimCore } from "./scheduler.js";

export interface LinkSpec {
  latencyMs: { min: number; max: number };
  lossRate: number;
}

interface Link {
  readonly rand: Random;
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
  /** links.get(from).get(to) */
  readonly links: Map<string, Map<string, Link>>;
  /** Messages sent and messages lost, for statistics. */
  sent: number;
  lost: number;
}

export function createNetwork(core: SimCore, seed: number, spec: LinkSpec): Network {
  return { core, spec, streams: createRandomStreams(seed), links: new Map(), sent: 0, lost: 0 };
}

function link(net: Network, from: string, to: string): Link {
  let out = net.links.get(from);
  if (out === undefined) {
    out = new Map();
    net.links.set(from, out);
  }
  let l = out.get(to);
  if (l === undefined) {
    l = { rand: net.streams.stream(`link:${from}>${to}`), cuts: 0, extraMs: 0, lastArrival: 0 };
    out.set(to, l);
  }
  return l;
}

/**
 * Sends a message from `from` to `to`: on arrival `handle` runs at `to` (or waits there while
 * it is paused); `refuse` runs if `to` is crashed (the sender's kernel gets a reset).
 */
export function send(
  net: Network,
  from: SimNode,
  to: SimNode,
  handle: () => void,
  refuse?: () => void,
): void {
  const l = link(net, from.name, to.name);
  const { latencyMs, lossRate } = net.spec;
  const latency = latencyMs.max <= latencyMs.min ? latencyMs.min : latencyMs.min + l.rand() * (latencyMs.max - latencyMs.min);
  const dropped = lossRate > 0 && l.rand() < lossRate;
  net.sent++;
  if (dropped || l.cuts > 0) {
    net.lost++;
    return;
  }
  let arrival = net.core.now + latency + l.extraMs;
  if (arrival < l.lastArrival) arrival = l.lastArrival;
  l.lastArrival = arrival;
  at(net.core, arrival, () => {
    if (l.cuts > 0) {
      net.lost++;
      return;
    }
    deliver(to, { handle, refuse });
  });
}

/** Cuts (delta = +1) or heals (delta = −1) the directed link from → to. */
export function cutLink(net: Network, from: string, to: string, delta: 1 | -1): void {
  const l = link(net, from, to);
  l.cuts += delta;
}

/** Adds (or with a negative value removes) extra delay on the directed link from → to. */
export function delayLink(net: Network, from: string, to: string, extraMs: number): void {
  const l = link(net, from, to);
  l.extraMs += extraMs;
}
