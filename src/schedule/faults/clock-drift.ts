import { z } from "zod";
import { ms, nodeRefSchema } from "../refs.js";
import type { FaultDescriptor } from "./descriptor.js";
import { hadEffect } from "./effect.js";
import { shifted, smallerInts, towardZero } from "./numbers.js";
import { fitOneNode, nodeClient, remapNode, theNode } from "./one-node.js";

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
  remapClients: remapNode,
  fit: fitOneNode,
  effectMs: () => 0,
  nodes: theNode,
  targetClient: nodeClient,
  pause: false,
  widenable: false,
  counted: false,
  timeline: { start: "clock-drift", end: null },
  startedBy: (f, s) => (s.f === "clock-drift" && s.value.ref === f.node ? hadEffect(s) : undefined),
} satisfies FaultDescriptor<"clock-drift">;
