/**
 * Message delay: messages from one node to another sent during a window arrive late — the
 * write that reaches the resource after the lease is gone, the grant that reaches its client
 * after the lease is gone. Extra latency and window shrink toward 1 ms.
 *
 * With `links: "real"` (hunts on real servers) the link is always a client's link to a lock
 * server or the resource, either way: the only links lockcheck's proxies can slow there.
 * Drawn from any two nodes, more than half of a hunt's delays on one redis-server did nothing
 * there: between two clients (which never talk), between the server and the resource, or
 * from a node to itself (dropped).
 */
import fc from "fast-check";
import type { NodeRef } from "../../schedule/schedule.js";
import type { FaultBounds } from "../bounds.js";
import { clientRefs, nodeArb, serverRefs } from "../nodes.js";
import type { DelayFault } from "./types.js";

export function delayArb(b: FaultBounds): fc.Arbitrary<DelayFault> {
  if (b.links === "real") return clientLinkDelayArb(b);
  // The simulator's seeds keep the schedules they always had: this draws exactly as before.
  const nodes: NodeRef[] = [...clientRefs(b.maxClients), ...serverRefs(b.servers, false), "resource"];
  return fc.record({
    kind: fc.constant("delay" as const),
    from: nodeArb(nodes),
    to: nodeArb(["resource", ...nodes.filter((n) => n !== "resource")]),
    at: fc.integer({ min: 0, max: b.horizonMs }),
    durationMs: fc.integer({ min: 1, max: b.maxDelayWindowMs }),
    extraMs: fc.integer({ min: 1, max: b.maxDelayMs }),
  });
}

function clientLinkDelayArb(b: FaultBounds): fc.Arbitrary<DelayFault> {
  return fc
    .record({
      client: nodeArb(clientRefs(b.maxClients)),
      peer: nodeArb([...serverRefs(b.servers, false), "resource"]),
      reply: fc.boolean(),
      at: fc.integer({ min: 0, max: b.horizonMs }),
      durationMs: fc.integer({ min: 1, max: b.maxDelayWindowMs }),
      extraMs: fc.integer({ min: 1, max: b.maxDelayMs }),
    })
    .map(({ client, peer, reply, ...window }) => ({
      kind: "delay" as const,
      from: reply ? peer : client,
      to: reply ? client : peer,
      ...window,
    }));
}
