import { z } from "zod";
import { ms, nodeRefSchema, positiveMs } from "../refs.js";
import type { FaultDescriptor } from "./descriptor.js";
import { hadEffect } from "./effect.js";
import { fitNode, shifted, shrinkBy, smallerInts } from "./numbers.js";

/** Messages sent from `from` to `to` during [at, at + durationMs) arrive `extraMs` later than usual. */
export const delayFaultSchema = z.strictObject({
  kind: z.literal("delay"),
  from: nodeRefSchema,
  to: nodeRefSchema,
  at: ms,
  durationMs: positiveMs,
  extraMs: positiveMs,
});

export const delay = {
  kind: "delay",
  description: "delay messages from one node to another by extraMs, from a time for durationMs",
  schema: delayFaultSchema,
  magnitude: (f) => f.durationMs + f.extraMs + f.at,
  *smaller(f) {
    for (const e of smallerInts(f.extraMs, 1)) yield { ...f, extraMs: e };
    for (const d of smallerInts(f.durationMs, 1)) yield { ...f, durationMs: d };
    for (const at of smallerInts(f.at, 0)) yield { ...f, at };
  },
  perturbed: (f, m) => [{ ...f, extraMs: shrinkBy(f.extraMs, m, 1) }, ...shifted(f, m)],
  remapClients(f, remap) {
    const from = remap.node(f.from);
    const to = remap.node(f.to);
    return from === null || to === null ? null : { ...f, from, to };
  },
  fit(f, clients) {
    const from = fitNode(f.from, clients);
    const to = fitNode(f.to, clients);
    return from === to ? null : { ...f, from, to };
  },
  effectMs: (f) => f.durationMs,
  nodes: (f) => [f.from, f.to],
  targetClient: () => undefined,
  pause: false,
  widenable: false,
  counted: false,
  timeline: { start: "delay", end: "delay-end" },
  startedBy: (f, s) =>
    s.f === "delay" &&
    s.value.checkpoint === undefined &&
    s.value.extraMs === f.extraMs &&
    s.value.durationMs === f.durationMs
      ? hadEffect(s)
      : undefined,
} satisfies FaultDescriptor<"delay">;
