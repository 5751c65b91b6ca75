/**
 * Partitions: the links between every node of side `a` and every node of side `b` are cut
 * for a while (one way only if `oneWay`). Sides are drawn from clients, servers and the
 * resource; `fitFaultsToClients` removes nodes that appear on both sides and drops
 * partitions left with an empty side. Sides shrink toward fewer nodes, durations toward 1 ms.
 */
import fc from "fast-check";
import type { NodeRef } from "../../src/schedule/schedule.js";
import type { FaultBounds } from "../bounds.js";
import { clientRefs, nodeSetArb, serverRefs } from "../nodes.js";
import type { PartitionFault } from "./types.js";

function partitionNodes(b: FaultBounds): NodeRef[] {
  return [...clientRefs(b.maxClients), ...serverRefs(b.servers, false), "resource"];
}

export function partitionArb(b: FaultBounds): fc.Arbitrary<PartitionFault> {
  const nodes = partitionNodes(b);
  return fc.record({
    kind: fc.constant("partition" as const),
    at: fc.integer({ min: 0, max: b.horizonMs }),
    durationMs: fc.integer({ min: 1, max: b.maxPartitionMs }),
    a: nodeSetArb(nodes, 3),
    b: nodeSetArb(nodes, nodes.length),
    oneWay: fc.boolean(),
  });
}
