import { z } from "zod";
import { pauseClocksSchema, positiveMs } from "../refs.js";
import { checkpointFaultPoint, checkpointFaultPointShape, smallerAfterMs } from "./after-checkpoint.js";
import type { FaultDescriptor } from "./descriptor.js";
import { shrinkBy, smallerInts } from "./numbers.js";
import { fitOneClient, remapClient, theClient, theClientNode } from "./one-client.js";
import { clocksMagnitude, withClocksRunning } from "./pause-clocks.js";

/**
 * Pause a client at the `occurrence`-th (0-based) time it reaches `checkpoint`, or `afterMs`
 * later by the client's own timer (it goes on meanwhile); with `clocks: "stopped"`, its clocks
 * stand still while it is paused (a suspended VM, see refs.ts).
 */
export const pauseAtFaultSchema = z.strictObject({
  kind: z.literal("pause-at"),
  ...checkpointFaultPointShape,
  durationMs: positiveMs,
  clocks: pauseClocksSchema.optional(),
});

type PauseAtFault = z.infer<typeof pauseAtFaultSchema>;

/**
 * Where and how long `f` pauses, as a world records it with the pause and resume (the clocks
 * go in apart, see pause-clocks.ts), and as a client process reports it to lockcheck.
 */
export const pauseAtMark = (
  f: Pick<PauseAtFault, "checkpoint" | "occurrence" | "afterMs" | "durationMs">,
) => ({
  ...checkpointFaultPoint(f),
  durationMs: f.durationMs,
});

export const pauseAt = {
  kind: "pause-at",
  description:
    "pause a client for durationMs at the occurrence-th time it reaches a checkpoint (or afterMs later)",
  schema: pauseAtFaultSchema,
  magnitude: (f) => f.durationMs + f.occurrence + (f.afterMs ?? 0) + clocksMagnitude(f),
  *smaller(f) {
    yield* withClocksRunning(f);
    for (const o of smallerInts(f.occurrence, 0)) yield { ...f, occurrence: o };
    for (const d of smallerInts(f.durationMs, 1)) yield { ...f, durationMs: d };
    yield* smallerAfterMs(f);
  },
  perturbed: (f, m) => [{ ...f, durationMs: shrinkBy(f.durationMs, m, 1) }],
  remapClients: remapClient,
  fit: fitOneClient,
  effectMs: (f) => f.durationMs,
  nodes: theClientNode,
  targetClient: theClient,
  pause: true,
  widenable: true,
  counted: true,
  timeline: { start: "pause", end: "resume" },
  startedBy: (f, s) =>
    s.f === "pause" &&
    s.node === `client:${f.client}` &&
    s.value.checkpoint === f.checkpoint &&
    s.value.occurrence === f.occurrence &&
    s.value.afterMs === f.afterMs &&
    s.value.clocks === f.clocks
      ? true
      : undefined,
} satisfies FaultDescriptor<"pause-at">;
