/**
 * `afterMs` of the checkpoint faults (`pause-at`, `partition-at`, `delay-at`): the fault
 * starts that long after the client reached the checkpoint, by the client's own timer; absent,
 * at the checkpoint itself. Absent is the only way to say "at once" (the schema wants it
 * positive), so a schedule has one spelling for it.
 */
import { z } from "zod";
import { checkpointSchema, positiveMs } from "../refs.js";
import type { Checkpoint } from "../schedule.js";
import { smallerInts } from "./numbers.js";

/**
 * Where a checkpoint fault starts, the fields every such kind shares: the client's
 * `occurrence`-th (0-based) arrival at `checkpoint`, and `afterMs` after it (absent: at the
 * checkpoint itself).
 */
export const checkpointFaultPointShape = {
  client: z.number().int().nonnegative(),
  checkpoint: checkpointSchema,
  occurrence: z.number().int().nonnegative(),
  afterMs: positiveMs.optional(),
};

/**
 * Where a checkpoint fault starts, as a world records it with the fault's start and end and a
 * client process names it to lockcheck: checkpoint, occurrence and `afterMs` if any.
 */
export const checkpointFaultPoint = (f: {
  checkpoint: Checkpoint;
  occurrence: number;
  afterMs?: number;
}) => ({
  checkpoint: f.checkpoint,
  occurrence: f.occurrence,
  ...afterMsField(f.afterMs),
});

/** `afterMs` as a field to spread into a fault, a message or a recorded value: none when absent. */
export const afterMsField = (afterMs: number | undefined): { afterMs?: number } =>
  afterMs === undefined ? {} : { afterMs };

/** What a fault's label adds for its `afterMs`: "+120ms", or nothing. */
export const afterMsLabel = (afterMs: number | undefined): string =>
  afterMs === undefined ? "" : `+${afterMs}ms`;

/** The fault at the checkpoint itself, then sooner after it. */
export function* smallerAfterMs<F extends { afterMs?: number }>(f: F): Generator<F> {
  if (f.afterMs === undefined) return;
  const { afterMs, ...atCheckpoint } = f;
  yield atCheckpoint as F;
  for (const a of smallerInts(afterMs, 1)) yield { ...f, afterMs: a };
}
