import { z } from "zod";
import { ms, nodeRefSchema, positiveMs } from "../refs.js";
import type { FaultDescriptor } from "./descriptor.js";
import { shifted, smallerInts } from "./numbers.js";
import { fitOneNode, nodeClient, remapNode, theNode } from "./one-node.js";

/** Crash a node: a server without persistence forgets its state; a client never releases. */
export const crashFaultSchema = z.strictObject({
  kind: z.literal("crash"),
  node: nodeRefSchema,
  at: ms,
  /** Restart the node this long after the crash; null: stays down. Clients are never restarted. */
  restartAfterMs: positiveMs.nullable(),
});

export const crash = {
  kind: "crash",
  description: "crash a node at a time; restart it restartAfterMs later (servers only) or never",
  schema: crashFaultSchema,
  magnitude: (f) => (f.restartAfterMs ?? 0) + f.at,
  *smaller(f) {
    if (f.restartAfterMs !== null)
      for (const r of smallerInts(f.restartAfterMs, 1)) yield { ...f, restartAfterMs: r };
    for (const at of smallerInts(f.at, 0)) yield { ...f, at };
  },
  perturbed: (f, m) => shifted(f, m),
  remapClients: remapNode,
  fit: fitOneNode,
  effectMs: (f) => f.restartAfterMs ?? Number.POSITIVE_INFINITY,
  nodes: theNode,
  targetClient: nodeClient,
  pause: false,
  widenable: false,
  counted: false,
  timeline: { start: "crash", end: "restart" },
  startedBy: (f, s) => (s.f === "crash" && s.value.ref === f.node ? true : undefined),
} satisfies FaultDescriptor<"crash">;
