import { z } from "zod";
import { nodeRefSchema, positiveMs } from "../refs.js";
import type { NodeRef } from "../schedule.js";
import { checkpointFaultPointShape, smallerAfterMs } from "./after-checkpoint.js";
import type { FaultDescriptor, RecordedStart } from "./descriptor.js";
import { fitNode, shrinkBy, smallerInts } from "./numbers.js";
import { remapClient, theClient } from "./one-client.js";
import { cutSomething } from "./partition.js";

/**
 * Cut a client off from `nodes` for `durationMs` (both directions; with `direction` only what
 * the client sends to them, "out", or only what they send to it, "in"), starting at the
 * `occurrence`-th (0-based) time it reaches `checkpoint`, or `afterMs` later by the client's
 * own timer. The client is not paused: it goes on at once, with its links cut (or, with
 * `afterMs`, goes on until they are). A partition at a time finds a client wherever its pace
 * has brought it, which on real servers differs from run to run; this one cuts the holder at
 * the same point of its work on every run (the shrinker aims timed partitions so,
 * aim-faults.ts).
 */
export const partitionAtFaultSchema = z.strictObject({
  kind: z.literal("partition-at"),
  ...checkpointFaultPointShape,
  durationMs: positiveMs,
  nodes: z.array(nodeRefSchema).min(1),
  /** Absent: both directions. A one-way cut on real servers black-holes that direction. */
  direction: z.enum(["out", "in"]).optional(),
});

type PartitionAtFault = z.infer<typeof partitionAtFaultSchema>;

const clientNode = (f: Pick<PartitionAtFault, "client">): NodeRef => `client:${f.client}`;

/** The cut as a timed partition's sides: the client's side is `a` unless only "in" is cut. */
export function partitionAtSides(f: Pick<PartitionAtFault, "client" | "nodes" | "direction">): {
  a: NodeRef[];
  b: NodeRef[];
  oneWay: boolean;
} {
  const client = clientNode(f);
  return f.direction === "in"
    ? { a: [...f.nodes], b: [client], oneWay: true }
    : { a: [client], b: [...f.nodes], oneWay: f.direction === "out" };
}

/** Whether a recorded partition start is this fault's: the client's cut at that checkpoint. */
function isItsStart(f: PartitionAtFault, s: RecordedStart): boolean {
  const side = f.direction === "in" ? s.value.b : s.value.a;
  return (
    s.f === "partition" &&
    s.value.checkpoint === f.checkpoint &&
    s.value.occurrence === f.occurrence &&
    s.value.afterMs === f.afterMs &&
    Array.isArray(side) &&
    side.includes(clientNode(f))
  );
}

export const partitionAt = {
  kind: "partition-at",
  description:
    "cut a client off from nodes (both ways, or one direction: out/in) for durationMs at the occurrence-th time it reaches a checkpoint (or afterMs later)",
  schema: partitionAtFaultSchema,
  magnitude: (f) => f.durationMs + f.occurrence + (f.afterMs ?? 0) + f.nodes.length * 1000,
  *smaller(f) {
    for (let i = 0; i < f.nodes.length && f.nodes.length > 1; i++)
      yield { ...f, nodes: f.nodes.filter((_, k) => k !== i) };
    for (const o of smallerInts(f.occurrence, 0)) yield { ...f, occurrence: o };
    for (const d of smallerInts(f.durationMs, 1)) yield { ...f, durationMs: d };
    yield* smallerAfterMs(f);
  },
  perturbed: (f, m) => [{ ...f, durationMs: shrinkBy(f.durationMs, m, 1) }],
  remapClients(f, remap) {
    const moved = remapClient(f, remap);
    if (moved === null) return null;
    const nodes = f.nodes.map((n) => remap.node(n)).filter((n): n is NodeRef => n !== null);
    return nodes.length === 0 ? null : { ...moved, nodes };
  },
  fit(f, clients) {
    const client = f.client % clients;
    const nodes = [...new Set(f.nodes.map((n) => fitNode(n, clients)))].filter(
      (n) => n !== `client:${client}`,
    );
    return nodes.length === 0 ? null : { ...f, client, nodes };
  },
  effectMs: (f) => f.durationMs,
  nodes: (f) => [clientNode(f), ...f.nodes],
  targetClient: theClient,
  pause: false,
  widenable: false,
  counted: true,
  timeline: { start: "partition", end: "heal" },
  startedBy: (f, s) => (isItsStart(f, s) ? cutSomething(s.value) : undefined),
} satisfies FaultDescriptor<"partition-at">;
