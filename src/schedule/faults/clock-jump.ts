import { z } from "zod";
import { ms, nodeRefSchema } from "../refs.js";
import type { FaultDescriptor } from "./descriptor.js";
import { hadEffect } from "./effect.js";
import { shifted, shrinkBy, smallerInts, towardZero } from "./numbers.js";
import { fitOneNode, nodeClient, remapNode, theNode } from "./one-node.js";

/** Step a node's wall clock by `deltaMs` (forward if positive, back if negative). */
export const clockJumpFaultSchema = z.strictObject({
  kind: z.literal("clock-jump"),
  node: nodeRefSchema,
  at: ms,
  deltaMs: z.number().int(),
});

export const clockJump = {
  kind: "clock-jump",
  description: "step a node's wall clock by deltaMs at a time",
  schema: clockJumpFaultSchema,
  magnitude: (f) => Math.abs(f.deltaMs) + f.at,
  *smaller(f) {
    for (const d of towardZero(f.deltaMs)) yield { ...f, deltaMs: d };
    for (const at of smallerInts(f.at, 0)) yield { ...f, at };
  },
  perturbed(f, m) {
    const smaller = Math.sign(f.deltaMs) * shrinkBy(Math.abs(f.deltaMs), m, 0);
    return [{ ...f, deltaMs: smaller }, ...shifted(f, m)];
  },
  remapClients: remapNode,
  fit: fitOneNode,
  effectMs: () => 0,
  nodes: theNode,
  targetClient: nodeClient,
  pause: false,
  widenable: false,
  counted: false,
  timeline: { start: "clock-jump", end: null },
  startedBy: (f, s) => (s.f === "clock-jump" && s.value.ref === f.node ? hadEffect(s) : undefined),
} satisfies FaultDescriptor<"clock-jump">;
