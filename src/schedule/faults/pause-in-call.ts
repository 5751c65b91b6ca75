import { z } from "zod";
import { callKindSchema, ms, pauseClocksSchema, positiveMs } from "../refs.js";
import type { FaultDescriptor } from "./descriptor.js";
import { smallerInts } from "./numbers.js";
import { fitOneClient, remapClient, theClient, theClientNode } from "./one-client.js";
import { clocksMagnitude, withClocksRunning } from "./pause-clocks.js";

/**
 * Pause a client `afterMs` after it invoked its `occurrence`-th (0-based) call of kind `call`,
 * for `durationMs`: a GC pause that lands while the call is in flight (requests sent, replies
 * not yet read) if the call takes longer than `afterMs`, and just after it otherwise. With
 * `clocks: "stopped"`, the client's clocks stand still while it is paused (see refs.ts).
 */
export const pauseInCallFaultSchema = z.strictObject({
  kind: z.literal("pause-in-call"),
  client: z.number().int().nonnegative(),
  call: callKindSchema,
  occurrence: z.number().int().nonnegative(),
  afterMs: ms,
  durationMs: positiveMs,
  clocks: pauseClocksSchema.optional(),
});

/** No `startedBy`: its start is recorded like any client pause, so it always counts as fired. */
export const pauseInCall = {
  kind: "pause-in-call",
  description: "pause a client for durationMs, afterMs into its occurrence-th call of a kind",
  schema: pauseInCallFaultSchema,
  magnitude: (f) => f.durationMs + f.occurrence + f.afterMs + clocksMagnitude(f),
  *smaller(f) {
    yield* withClocksRunning(f);
    for (const o of smallerInts(f.occurrence, 0)) yield { ...f, occurrence: o };
    for (const d of smallerInts(f.durationMs, 1)) yield { ...f, durationMs: d };
    for (const a of smallerInts(f.afterMs, 0)) yield { ...f, afterMs: a };
  },
  perturbed: () => [],
  remapClients: remapClient,
  fit: fitOneClient,
  effectMs: (f) => f.durationMs,
  nodes: theClientNode,
  targetClient: theClient,
  pause: true,
  widenable: false,
  counted: true,
  timeline: { start: "pause", end: "resume" },
} satisfies FaultDescriptor<"pause-in-call">;
