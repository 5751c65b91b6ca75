import { z } from "zod";
import { ms, nodeRefSchema } from "../refs.js";
import type { FaultDescriptor } from "./descriptor.js";
import { hadEffect } from "./effect.js";
import { clientOf, fitNode, shifted, smallerInts, towardZero } from "./numbers.js";

/** From `at` on, a node's clock runs at (1 + rate) times true speed (rate 0.1: 10% fast). */
export const clockDriftFaultSchema = z.strictObject({
  kind: z.literal("clock-drift"),
  node: nodeRefSchema,
  at: ms,
  rate: z.number().min(-0.9).max(10),
});

export const clockDrift = {
  kind: "clock-drift",
  description: "from a time on, run a node's clock at (1 + rate) times true speed",
  schema: clockDriftFaultSchema,
  magnitude: (f) => Math.round(Math.abs(f.rate) * 1000) + f.at,
  *smaller(f) {
    for (const r of towardZero(Math.round(f.rate * 1000))) yield { ...f, rate: r / 1000 };
    for (const at of smallerInts(f.at, 0)) yield { ...f, at };
  },
  perturbed: (f, m) => shifted(f, m),
  remapClients(f, remap) {
    const node = remap.node(f.node);
    return node === null ? null : { ...f, node };
  },
  fit: (f, clients) => ({ ...f, node: fitNode(f.node, clients) }),
  effectMs: () => 0,
  nodes: (f) => [f.node],
  targetClient: (f) => clientOf(f.node),
  pause: false,
  widenable: false,
  counted: false,
  timeline: { start: "clock-drift", end: null },
  startedBy: (f, s) => (s.f === "clock-drift" && s.value.ref === f.node ? hadEffect(s) : undefined),
} satisfies FaultDescriptor<"clock-drift">;
