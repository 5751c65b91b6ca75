/**
 * Partitions: the links between every node of side `a` and every node of side `b` are cut
 * for a while (one way only if `oneWay`). Three shapes, the useful ones most often:
 * - a client cut off from a minority of the servers (it can still win a majority without
 *   them — the first half of the published Redlock counterexample);
 * - the servers split in two (a leader isolated from its followers);
 * - any two sets of nodes, the resource included (with `links: "real"`: some clients on one
 *   side, lock servers or the resource on the other; and servers split only in a cluster with
 *   a leader, whose servers talk to each other — Redis servers never do).
 * With `clientIsolationMs`, half of them are a fourth shape instead: a client cut off both
 * ways from every lock server, but not from the resource, for that long (a lock that renews
 * its lease loses it while its holder still writes).
 * `fitFaultsToClients` removes nodes on both sides and drops partitions left with an empty
 * side. Sides shrink toward fewer nodes, durations toward 1 ms, start times toward 0.
 */
import fc from "fast-check";
import type { NodeRef } from "../../schedule/schedule.js";
import type { FaultBounds } from "../bounds.js";
import { clientRefs, nodeArb, nodeSetArb, serverRefs } from "../nodes.js";
import type { PartitionFault } from "./types.js";

type Sides = { a: NodeRef[]; b: NodeRef[] };

function clientFromServers(b: FaultBounds): fc.Arbitrary<Sides> {
  const servers = serverRefs(b.servers, false);
  const minority = Math.max(1, Math.floor(servers.length / 2));
  return fc.record({
    a: nodeArb(clientRefs(b.maxClients)).map((c) => [c]),
    b: nodeSetArb(servers, minority),
  });
}

function serverSplit(b: FaultBounds): fc.Arbitrary<Sides> {
  const servers = serverRefs(b.servers, false);
  return nodeSetArb(servers, Math.max(1, Math.floor(servers.length / 2))).map((a) => ({
    a,
    b: servers.filter((s) => !a.includes(s)),
  }));
}

function anyNodes(b: FaultBounds): fc.Arbitrary<Sides> {
  const nodes: NodeRef[] = [...clientRefs(b.maxClients), ...serverRefs(b.servers, false), "resource"];
  return fc.record({ a: nodeSetArb(nodes, 3), b: nodeSetArb(nodes, nodes.length) });
}

/** One client cut off from every lock server, both ways, for `b.clientIsolationMs`. */
function clientIsolation(b: FaultBounds, ms: { min: number; max: number }): fc.Arbitrary<PartitionFault> {
  const servers = serverRefs(b.servers, false);
  return fc
    .record({
      at: fc.integer({ min: 0, max: b.horizonMs }),
      durationMs: fc.integer({ min: ms.min, max: ms.max }),
      client: nodeArb(clientRefs(b.maxClients)),
    })
    .map(({ at, durationMs, client }) => ({
      kind: "partition" as const,
      at,
      durationMs,
      a: [client],
      b: servers,
      oneWay: false,
    }));
}

export function partitionArb(b: FaultBounds): fc.Arbitrary<PartitionFault> {
  const shaped = shapedPartitionArb(b);
  return b.clientIsolationMs === null ? shaped : fc.oneof(shaped, clientIsolation(b, b.clientIsolationMs));
}

/** Some clients on one side, lock servers or the resource on the other. */
function clientsFromOthers(b: FaultBounds): fc.Arbitrary<Sides> {
  return fc.record({
    a: nodeSetArb(clientRefs(b.maxClients), 3),
    b: nodeSetArb([...serverRefs(b.servers, false), "resource"], b.servers + 1),
  });
}

function shapedPartitionArb(b: FaultBounds): fc.Arbitrary<PartitionFault> {
  const real = b.links === "real";
  const shapes = [
    { arbitrary: clientFromServers(b), weight: 3 },
    { arbitrary: real ? clientsFromOthers(b) : anyNodes(b), weight: 1 },
  ];
  if (b.servers > 1 && (!real || b.leader)) shapes.push({ arbitrary: serverSplit(b), weight: 1 });
  return fc
    .record({
      at: fc.integer({ min: 0, max: b.horizonMs }),
      durationMs: fc.integer({ min: 1, max: b.maxPartitionMs }),
      sides: fc.oneof(...shapes),
      oneWay: fc.boolean(),
    })
    .map(({ at, durationMs, sides, oneWay }) => ({
      kind: "partition" as const,
      at,
      durationMs,
      a: sides.a,
      b: sides.b,
      oneWay,
    }));
}
