/** The names and numbers schedules and fault kinds share: nodes, checkpoints, calls, milliseconds. */
import { z } from "zod";

/** A node a fault can hit. `server:leader` means "whichever server leads at that moment". */
export const nodeRefSchema = z
  .string()
  .regex(
    /^(client:\d+|server:\d+|server:leader|resource)$/,
    "expected client:N, server:N, server:leader or resource",
  );
export type NodeRef = z.infer<typeof nodeRefSchema>;

/**
 * Named points inside a lock algorithm where a schedule may pause the client, so that a
 * pause lands exactly where it hurts (real GC pauses do not wait for a convenient moment):
 * - `acquire-sent`: requests to the lock servers are on the wire, replies not yet processed;
 * - `acquired`: the client was granted the lock and has not written yet;
 * - `before-write`: just before each write to the resource;
 * - `before-release`: the client is done and about to release;
 * - `before-acquire`: the client is about to call acquire (every lock passes it, a library
 *   too: the workload marks it, where `acquire-sent` is the algorithm's own), numbered by its
 *   acquire calls. The shrinker aims a partition or a delay that came during an acquire here,
 *   `afterMs` after it (aim-faults.ts); generated schedules do not use it.
 */
export const checkpointSchema = z.enum([
  "acquire-sent",
  "acquired",
  "before-write",
  "before-release",
  "before-acquire",
]);

/** The checkpoints generated schedules use (`before-acquire` only comes from the shrinker). */
export const GENERATED_CHECKPOINTS = [
  "acquire-sent",
  "acquired",
  "before-write",
  "before-release",
] as const satisfies readonly Checkpoint[];
export type Checkpoint = z.infer<typeof checkpointSchema>;

export const ms = z.number().int().nonnegative();
export const positiveMs = z.number().int().positive();

/** Client calls a `pause-in-call` fault can aim at (the ops of the history). */
export const callKindSchema = z.enum(["acquire", "release", "write"]);
export type CallKind = z.infer<typeof callKindSchema>;

/**
 * What a client pause does to the client's clocks: absent, they run on (a GC pause, SIGSTOP);
 * "stopped", they stand still while it is paused and go on from where they stopped (a
 * suspended VM whose clocks were not corrected): on resume the client reads the time it read
 * when it stopped, on its wall clock and its monotonic clock alike.
 */
export const pauseClocksSchema = z.literal("stopped");
export type PauseClocks = z.infer<typeof pauseClocksSchema>;
