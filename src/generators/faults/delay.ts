/**
 * Message delay: messages from one node to another sent during a window arrive late — the
 * write that reaches the resource after the lease is gone. Extra latency and window shrink
 * toward 1 ms.
 */
import fc from "fast-check";
import type { NodeRef } from "../../schedule/schedule.js";
import type { FaultBounds } from "../bounds.js";
import { clientRefs, nodeArb, serverRefs } from "../nodes.js";
import type { DelayFault } from "./types.js";

export function delayArb(b: FaultBounds): fc.Arbitrary<DelayFault> {
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
