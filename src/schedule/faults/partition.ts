import { z } from "zod";
import { ms, nodeRefSchema, positiveMs } from "../refs.js";
import type { NodeRef } from "../schedule.js";
import type { ClientRemap, FaultDescriptor, RecordedStart } from "./descriptor.js";
import { fitNode, shifted, shrinkBy, smallerInts } from "./numbers.js";

/**
 * Cut the links between every node of `a` and every node of `b` (both directions, or only
 * a→b when `oneWay`). Messages on a cut link are lost.
 */
export const partitionFaultSchema = z.strictObject({
  kind: z.literal("partition"),
  at: ms,
  durationMs: positiveMs,
  a: z.array(nodeRefSchema).min(1),
  b: z.array(nodeRefSchema).min(1),
  oneWay: z.boolean(),
});

function remapSide(side: readonly NodeRef[], remap: ClientRemap): NodeRef[] {
  return side.map((n) => remap.node(n)).filter((n): n is NodeRef => n !== null);
}

/** A partition whose recorded groups hold no client↔non-client pair cut nothing that is proxied. */
export function cutSomething(v: RecordedStart["value"]): boolean {
  if (v.unsupported === undefined) return true;
  if (Array.isArray(v.isolated) && v.isolated.length > 0) return true;
  const a = Array.isArray(v.a) ? (v.a as string[]) : [];
  const b = Array.isArray(v.b) ? (v.b as string[]) : [];
  const isClient = (n: string) => n.startsWith("client:");
  return a.some((x) => b.some((y) => isClient(x) !== isClient(y)));
}

export const partition = {
  kind: "partition",
  description: "cut the links between nodes a and b (or only a→b) at a time for durationMs",
  schema: partitionFaultSchema,
  magnitude: (f) => f.durationMs + f.at + (f.a.length + f.b.length) * 1000 + (f.oneWay ? 0 : 1),
  *smaller(f) {
    for (let i = 0; i < f.a.length && f.a.length > 1; i++) yield { ...f, a: f.a.filter((_, k) => k !== i) };
    for (let i = 0; i < f.b.length && f.b.length > 1; i++) yield { ...f, b: f.b.filter((_, k) => k !== i) };
    for (const d of smallerInts(f.durationMs, 1)) yield { ...f, durationMs: d };
    for (const at of smallerInts(f.at, 0)) yield { ...f, at };
  },
  perturbed: (f, m) => [{ ...f, durationMs: shrinkBy(f.durationMs, m, 1) }, ...shifted(f, m)],
  remapClients(f, remap) {
    const a = remapSide(f.a, remap);
    const b = remapSide(f.b, remap);
    return a.length === 0 || b.length === 0 ? null : { ...f, a, b };
  },
  fit(f, clients) {
    const fitSide = (side: readonly NodeRef[]) => [...new Set(side.map((n) => fitNode(n, clients)))];
    const a = fitSide(f.a);
    const b = fitSide(f.b).filter((n) => !a.includes(n));
    return b.length === 0 ? null : { ...f, a, b };
  },
  effectMs: (f) => f.durationMs,
  nodes: (f) => [...f.a, ...f.b],
  targetClient: () => undefined,
  pause: false,
  widenable: false,
  counted: false,
  timeline: { start: "partition", end: "heal" },
  startedBy: (f, s) =>
    s.f === "partition" &&
    s.value.checkpoint === undefined &&
    s.value.durationMs === f.durationMs &&
    s.value.oneWay === f.oneWay
      ? cutSomething(s.value)
      : undefined,
} satisfies FaultDescriptor<"partition">;
