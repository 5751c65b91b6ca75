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
 * - `before-release`: the client is done and about to release.
 */
export const checkpointSchema = z.enum(["acquire-sent", "acquired", "before-write", "before-release"]);
export type Checkpoint = z.infer<typeof checkpointSchema>;

const ms = z.number().int().nonnegative();
const positiveMs = z.number().int().positive();

/** One lock cycle of one client: think, acquire, write `writes` times spread over `holdMs`, release. */
export const cycleSchema = z.strictObject({
  thinkMs: ms,
  holdMs: ms,
  writes: z.number().int().min(0).max(100),
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

/** Freeze a node (GC pause, SIGSTOP) at a time: it runs nothing; messages to it queue. */
export const pauseFaultSchema = z.strictObject({
  kind: z.literal("pause"),
  node: nodeRefSchema,
  at: ms,
  durationMs: positiveMs,
});

/** Pause a client at the `occurrence`-th (0-based) time it reaches `checkpoint`. */
export const pauseAtFaultSchema = z.strictObject({
  kind: z.literal("pause-at"),
  client: z.number().int().nonnegative(),
  checkpoint: checkpointSchema,
  occurrence: z.number().int().nonnegative(),
  durationMs: positiveMs,
});

/** Client calls a `pause-in-call` fault can aim at (the ops of the history). */
export const callKindSchema = z.enum(["acquire", "release", "write"]);
export type CallKind = z.infer<typeof callKindSchema>;

/**
 * Pause a client `afterMs` after it invoked its `occurrence`-th (0-based) call of kind `call`,
 * for `durationMs`: a GC pause that lands while the call is in flight (requests sent, replies
 * not yet read) if the call takes longer than `afterMs`, and just after it otherwise.
 */
export const pauseInCallFaultSchema = z.strictObject({
  kind: z.literal("pause-in-call"),
  client: z.number().int().nonnegative(),
  call: callKindSchema,
  occurrence: z.number().int().nonnegative(),
  afterMs: ms,
  durationMs: positiveMs,
});

/** Crash a node: a server without persistence forgets its state; a client never releases. */
export const crashFaultSchema = z.strictObject({
  kind: z.literal("crash"),
  node: nodeRefSchema,
  at: ms,
  /** Restart the node this long after the crash; null: stays down. Clients are never restarted. */
  restartAfterMs: positiveMs.nullable(),
});

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

/** Step a node's wall clock by `deltaMs` (forward if positive, back if negative). */
export const clockJumpFaultSchema = z.strictObject({
  kind: z.literal("clock-jump"),
  node: nodeRefSchema,
  at: ms,
  deltaMs: z.number().int(),
});

/** From `at` on, a node's clock runs at (1 + rate) times true speed (rate 0.1: 10% fast). */
export const clockDriftFaultSchema = z.strictObject({
  kind: z.literal("clock-drift"),
  node: nodeRefSchema,
  at: ms,
  rate: z.number().min(-0.9).max(10),
});

/** Messages sent from `from` to `to` during [at, at + durationMs) arrive `extraMs` later than usual. */
export const delayFaultSchema = z.strictObject({
  kind: z.literal("delay"),
  from: nodeRefSchema,
  to: nodeRefSchema,
  at: ms,
  durationMs: positiveMs,
  extraMs: positiveMs,
});

export const faultSchema = z.discriminatedUnion("kind", [
  pauseFaultSchema,
  pauseAtFaultSchema,
  pauseInCallFaultSchema,
  crashFaultSchema,
  partitionFaultSchema,
  clockJumpFaultSchema,
  clockDriftFaultSchema,
  delayFaultSchema,
]);
export type Fault = z.infer<typeof faultSchema>;
export type FaultKind = Fault["kind"];

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
   * For a target from a user's module (docs/custom-locks.md, docs/libraries.md): the module's
   * absolute path, loaded again when the schedule is replayed, and the adapter options the run
   * was given (handed to a library adapter's `connect`). Absent for built-in targets.
   */
  module: z
    .strictObject({ path: z.string().min(1), options: z.record(z.string(), z.unknown()).optional() })
    .optional(),
});
export type Schedule = z.infer<typeof scheduleSchema>;
