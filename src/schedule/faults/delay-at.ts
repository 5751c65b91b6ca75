import { z } from "zod";
import { nodeRefSchema, positiveMs } from "../refs.js";
import type { NodeRef } from "../schedule.js";
import { checkpointFaultPointShape, smallerAfterMs } from "./after-checkpoint.js";
import type { FaultDescriptor, RecordedStart } from "./descriptor.js";
import { hadEffect } from "./effect.js";
import { clientOf, fitNode, shrinkBy, smallerInts } from "./numbers.js";
import { remapClient, theClient } from "./one-client.js";

/** The other end of a client's link: a lock server or the resource, never a client. */
const linkEndSchema = nodeRefSchema.refine(
  (ref) => clientOf(ref) === undefined,
  "expected server:N, server:leader or resource (the other end of the client's link)",
);

/**
 * Delay one link of a client for `durationMs`, starting at the `occurrence`-th (0-based) time
 * it reaches `checkpoint`, or `afterMs` later by the client's own timer: messages sent on it
 * meanwhile arrive `extraMs` later than they would. `direction` "out" delays what the client
 * sends to `node` (its writes to the resource), "in" what `node` sends to the client (a lock
 * server's replies). The client goes on at once, its link delayed. A delay at a time finds a
 * client wherever its pace has brought it, which on real servers differs from run to run; this
 * one catches the same write on every run (the shrinker aims timed delays so, aim-faults.ts).
 */
export const delayAtFaultSchema = z.strictObject({
  kind: z.literal("delay-at"),
  ...checkpointFaultPointShape,
  node: linkEndSchema,
  direction: z.enum(["out", "in"]),
  durationMs: positiveMs,
  extraMs: positiveMs,
});

type DelayAtFault = z.infer<typeof delayAtFaultSchema>;

/** The directed link `f` delays, as node refs. */
export function delayedLink(f: Pick<DelayAtFault, "client" | "node" | "direction">): {
  from: NodeRef;
  to: NodeRef;
} {
  const client = `client:${f.client}`;
  return f.direction === "out" ? { from: client, to: f.node } : { from: f.node, to: client };
}

/** Whether a recorded delay start is this fault's: the client's end of it, at that checkpoint. */
function isItsStart(f: DelayAtFault, s: RecordedStart): boolean {
  const client = `client:${f.client}`;
  return (
    s.f === "delay" &&
    s.value.checkpoint === f.checkpoint &&
    s.value.occurrence === f.occurrence &&
    s.value.afterMs === f.afterMs &&
    s.value.extraMs === f.extraMs &&
    s.value.durationMs === f.durationMs &&
    (f.direction === "out" ? s.value.from === client : s.value.to === client)
  );
}

export const delayAt = {
  kind: "delay-at",
  description:
    "delay one link of a client by extraMs for durationMs from the occurrence-th time it reaches a checkpoint (or afterMs later)",
  schema: delayAtFaultSchema,
  magnitude: (f) => f.durationMs + f.extraMs + f.occurrence + (f.afterMs ?? 0),
  *smaller(f) {
    for (const e of smallerInts(f.extraMs, 1)) yield { ...f, extraMs: e };
    for (const d of smallerInts(f.durationMs, 1)) yield { ...f, durationMs: d };
    for (const o of smallerInts(f.occurrence, 0)) yield { ...f, occurrence: o };
    yield* smallerAfterMs(f);
  },
  perturbed: (f, m) => [{ ...f, extraMs: shrinkBy(f.extraMs, m, 1) }],
  remapClients: remapClient,
  fit(f, clients) {
    const client = f.client % clients;
    const node = fitNode(f.node, clients);
    return clientOf(node) === undefined ? { ...f, client, node } : null;
  },
  effectMs: (f) => f.durationMs,
  nodes: (f) => [`client:${f.client}`, f.node],
  targetClient: theClient,
  pause: false,
  widenable: false,
  counted: true,
  timeline: { start: "delay", end: "delay-end" },
  startedBy: (f, s) => (isItsStart(f, s) ? hadEffect(s) : undefined),
} satisfies FaultDescriptor<"delay-at">;
