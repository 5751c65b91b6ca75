/**
 * The schedule: the unit lockcheck generates, seeds, shrinks, saves and replays.
 *
 * A schedule is plain JSON. The same schedule runs in the simulator and against real
 * servers: it names nodes abstractly ("client:0", "server:2", "resource") and each world
 * maps those names onto what it runs. Everything random inside a run is drawn from `seed`.
 * All times are milliseconds of true time since the run started, except where a field says
 * it is measured on a node's own clock.
 */
import { z } from "zod";
import { clockDriftFaultSchema } from "./faults/clock-drift.js";
import { clockJumpFaultSchema } from "./faults/clock-jump.js";
import { crashFaultSchema } from "./faults/crash.js";
import { delayFaultSchema } from "./faults/delay.js";
import { delayAtFaultSchema } from "./faults/delay-at.js";
import { partitionFaultSchema } from "./faults/partition.js";
import { partitionAtFaultSchema } from "./faults/partition-at.js";
import { pauseFaultSchema } from "./faults/pause.js";
import { pauseAtFaultSchema } from "./faults/pause-at.js";
import { pauseInCallFaultSchema } from "./faults/pause-in-call.js";
import { ms, positiveMs } from "./refs.js";

// Each fault kind's schema lives with its descriptor in src/schedule/faults/<kind>.ts.
export {
  type CallKind,
  type Checkpoint,
  callKindSchema,
  checkpointSchema,
  GENERATED_CHECKPOINTS,
  type NodeRef,
  nodeRefSchema,
  type PauseClocks,
  pauseClocksSchema,
} from "./refs.js";
export {
  clockDriftFaultSchema,
  clockJumpFaultSchema,
  crashFaultSchema,
  delayAtFaultSchema,
  delayFaultSchema,
  partitionFaultSchema,
  pauseAtFaultSchema,
  pauseFaultSchema,
  pauseInCallFaultSchema,
};

/** The most writes one lock cycle may make. */
export const MAX_WRITES_PER_CYCLE = 100;

/** One lock cycle of one client: think, acquire, write `writes` times spread over `holdMs`, release. */
export const cycleSchema = z.strictObject({
  thinkMs: ms,
  holdMs: ms,
  writes: z.number().int().min(0).max(MAX_WRITES_PER_CYCLE),
});
export type Cycle = z.infer<typeof cycleSchema>;

export const clientPlanSchema = z.strictObject({
  id: z.number().int().nonnegative(),
  cycles: z.array(cycleSchema),
  /**
   * Start over with the first cycle after the last, until the horizon (a client that keeps
   * cycling for the whole run, as `lockcheck run --duration` generates). Absent: run each
   * cycle once.
   */
  repeat: z.literal(true).optional(),
});
export type ClientPlan = z.infer<typeof clientPlanSchema>;

export const faultSchema = z.discriminatedUnion("kind", [
  pauseFaultSchema,
  pauseAtFaultSchema,
  pauseInCallFaultSchema,
  crashFaultSchema,
  partitionFaultSchema,
  partitionAtFaultSchema,
  clockJumpFaultSchema,
  clockDriftFaultSchema,
  delayFaultSchema,
  delayAtFaultSchema,
]);
export type Fault = z.infer<typeof faultSchema>;
export type FaultKind = Fault["kind"];

/** A fault that starts at a time (`at`); the others start at a client's own progress (a checkpoint, a call). */
export type TimedFault = Extract<Fault, { at: number }>;

export const isTimedFault = (f: Fault): f is TimedFault => "at" in f;

/** A fault that starts at a client's `occurrence`-th (0-based) arrival at a checkpoint. */
export type CheckpointFault = Extract<Fault, { checkpoint: unknown }>;

/** Whether `f` starts at this hit: client `client` reaching `checkpoint` for the `occurrence`-th time. */
export const startsAtHit = (
  f: Fault,
  client: number,
  checkpoint: CheckpointFault["checkpoint"],
  occurrence: number,
): f is CheckpointFault =>
  "checkpoint" in f && f.client === client && f.checkpoint === checkpoint && f.occurrence === occurrence;

/**
 * How the protected resource treats tokens:
 * - `unfenced`: accepts every write;
 * - `fenced`: rejects a write whose token is lower than the highest it has accepted;
 * - `fenced-txn`: (etcd-like targets) the write is a transaction that succeeds only while the
 *   lock key's create revision still equals the writer's token.
 */
export const resourceModeSchema = z.enum(["unfenced", "fenced", "fenced-txn"]);
export type ResourceMode = z.infer<typeof resourceModeSchema>;

export const scheduleOptionsSchema = z.strictObject({
  /** Name of the lock all clients contend for. */
  lockName: z.string().min(1),
  /** Lease time-to-live requested on acquire. */
  ttlMs: positiveMs,
  /** A call with no reply after this long completes as `info` (timeout). */
  callTimeoutMs: positiveMs,
  /** Clients start no new cycle after this; the run ends when all are done or at 2× this. */
  horizonMs: positiveMs,
  /** One-way message latency, drawn uniformly per message from [min, max]. */
  latencyMs: z.strictObject({ min: ms, max: ms }),
  /** Probability that any one message is lost. */
  lossRate: z.number().min(0).max(1),
  /** How many lock servers the target runs (1 for lease, 5 for redlock, 3 for consensus). */
  servers: z.number().int().min(1).max(9),
});
export type ScheduleOptions = z.infer<typeof scheduleOptionsSchema>;

export const partitionModeSchema = z.enum(["cut", "blackhole"]);
export type PartitionMode = z.infer<typeof partitionModeSchema>;

export const scheduleSchema = z.strictObject({
  version: z.literal(1),
  /** World and lock, e.g. "sim:redlock", "redis:lease", "etcd:lock". */
  target: z.string().regex(/^[a-z]+:[a-z0-9-]+$/, "expected world:name, e.g. sim:redlock"),
  resource: resourceModeSchema,
  /** 32-bit unsigned seed for everything random inside the run. */
  seed: z.number().int().min(0).max(0xffffffff),
  options: scheduleOptionsSchema,
  clients: z.array(clientPlanSchema).min(1),
  faults: z.array(faultSchema),
  /**
   * Real targets: what a two-way partition does to a cut link's TCP proxy. `cut` (the default,
   * when absent) resets its connections and refuses new ones (messages are lost, as in the
   * simulator); `blackhole` accepts but forwards nothing until the heal (a silent drop with
   * TCP retransmission: held requests may still arrive after it). A one-way partition always
   * black-holes its one direction. The simulator loses a cut link's messages either way.
   */
  partitionMode: partitionModeSchema.optional(),
  /**
   * For a target from a user's module (docs/custom-locks.md, docs/libraries.md): the module's
   * absolute path, loaded again when the schedule is replayed; in a saved run folder also its
   * path from that folder (`relativePath`, tried first: module-path.ts), so that a folder
   * committed with the project finds it in another checkout; and the adapter options the run
   * was given (handed to a library adapter's `connect`). Absent for built-in targets.
   */
  module: z
    .strictObject({
      path: z.string().min(1),
      relativePath: z.string().min(1).optional(),
      options: z.record(z.string(), z.unknown()).optional(),
    })
    .optional(),
});
export type Schedule = z.infer<typeof scheduleSchema>;

/** `s` with partitions acting as `mode` (absent: as `s` says); `cut`, the default, is left unsaid. */
export function withPartitionMode(s: Schedule, mode: PartitionMode | undefined): Schedule {
  const { partitionMode, ...rest } = s;
  const m = mode ?? partitionMode;
  return m === undefined || m === "cut" ? rest : { ...rest, partitionMode: m };
}
