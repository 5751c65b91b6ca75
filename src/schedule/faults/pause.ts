import { z } from "zod";
import { ms, nodeRefSchema, positiveMs } from "../refs.js";
import type { FaultDescriptor } from "./descriptor.js";
import { shifted, shrinkBy, smallerInts } from "./numbers.js";
import { fitOneNode, nodeClient, remapNode, theNode } from "./one-node.js";

/** Freeze a node (GC pause, SIGSTOP) at a time: it runs nothing; messages to it queue. */
export const pauseFaultSchema = z.strictObject({
  kind: z.literal("pause"),
  node: nodeRefSchema,
  at: ms,
  durationMs: positiveMs,
});

export const pause = {
  kind: "pause",
  description: "freeze a node (GC pause, SIGSTOP) at a time for durationMs",
  schema: pauseFaultSchema,
  magnitude: (f) => f.durationMs + f.at,
  *smaller(f) {
    for (const d of smallerInts(f.durationMs, 1)) yield { ...f, durationMs: d };
    for (const at of smallerInts(f.at, 0)) yield { ...f, at };
  },
  perturbed: (f, m) => [{ ...f, durationMs: shrinkBy(f.durationMs, m, 1) }, ...shifted(f, m)],
  remapClients: remapNode,
  fit: fitOneNode,
  effectMs: (f) => f.durationMs,
  nodes: theNode,
  targetClient: nodeClient,
  pause: true,
  widenable: true,
  counted: false,
  timeline: { start: "pause", end: "resume" },
  startedBy: (f, s) =>
    s.f === "pause" && s.value.ref === f.node && s.value.durationMs === f.durationMs ? true : undefined,
} satisfies FaultDescriptor<"pause">;
