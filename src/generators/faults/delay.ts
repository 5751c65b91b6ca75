/**
 * Message delay: messages from one node to another sent during a window arrive late — the
 * write that reaches the resource after the lease is gone, the grant that reaches its client
 * after the lease is gone. Extra latency and window shrink toward 1 ms.
 *
 * With `links: "real"` (hunts on real servers) the link is always a client's link to a lock
 * server or the resource, either way: the only links lockcheck's proxies can slow there.
 * Drawn from any two nodes, more than half of a hunt's delays on one redis-server did nothing
 * there: between two clients (which never talk), between the server and the resource, or
 * from a node to itself (dropped). Half of those delays hold back a client's writes to the
 * resource — the delayed packet, which reaches the resource after its client gave up and after
 * the next holder's write: drawn over all the links alike, one in 4 delays of a one-server
 * Redis hunt was such a delay and one in 12 of a five-server one, and 3 seeds of 20-s
 * `--faults delay,partition` runs found no violation on the one-server lease (bench/hunt.ts).
 * Those start at the client's `before-write` checkpoint (`delay-at`), so each catches a write:
 * a window at a time caught one only when the client happened to write in it — seldom for a
 * library whose clients write a few times in 20 s (etcd3-lock.mjs) — and a replay of it, its
 * clients at another pace, seldom caught the same write again.
 */
import fc from "fast-check";
import type { NodeRef } from "../../schedule/schedule.js";
import type { FaultBounds } from "../bounds.js";
import { clientRefs, nodeArb, serverRefs } from "../nodes.js";
import type { DelayAtFault, DelayFault } from "./types.js";

export function delayArb(b: FaultBounds): fc.Arbitrary<DelayFault | DelayAtFault> {
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

function clientLinkDelayArb(b: FaultBounds): fc.Arbitrary<DelayFault | DelayAtFault> {
  const window = {
    client: nodeArb(clientRefs(b.maxClients)),
    at: fc.integer({ min: 0, max: b.horizonMs }),
    durationMs: fc.integer({ min: 1, max: b.maxDelayWindowMs }),
    extraMs: fc.integer({ min: 1, max: b.maxDelayMs }),
  };
  const heldWrites = fc.record({
    kind: fc.constant("delay-at" as const),
    client: fc.integer({ min: 0, max: b.maxClients - 1 }),
    checkpoint: fc.constant("before-write" as const),
    // One of the first writes: a client that writes seldom (a slow lock, a long wait for it)
    // may not reach a later one before the run ends, and then the delay never starts.
    occurrence: fc.integer({ min: 0, max: Math.max(0, b.maxCycles - 1) }),
    node: fc.constant("resource" as const),
    direction: fc.constant("out" as const),
    durationMs: window.durationMs,
    extraMs: window.extraMs,
  });
  const anyLink = fc
    .record({ ...window, peer: nodeArb([...serverRefs(b.servers, false), "resource"]), reply: fc.boolean() })
    .map(({ client, peer, reply, ...w }) => ({
      kind: "delay" as const,
      from: reply ? peer : client,
      to: reply ? client : peer,
      ...w,
    }));
  return fc.oneof(heldWrites, anyLink);
}
