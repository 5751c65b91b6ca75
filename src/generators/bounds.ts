/**
 * Bounds for the schedule generators: every knob of a generated schedule is limited by one
 * of these fields, so a property can ask for "at most 3 clients and short pauses" and get
 * nothing else. Durations default to multiples of the lease TTL, because what matters for a
 * lock is whether a fault outlasts the lease.
 */
import {
  type Checkpoint,
  checkpointSchema,
  GENERATED_CHECKPOINTS,
  MAX_WRITES_PER_CYCLE,
  type ScheduleOptions,
} from "../schedule/schedule.js";

/**
 * Groups of faults, as `lockcheck fuzz --faults` names them. `suspend`: a client paused with
 * its clocks stopped (a suspended VM: `pause-at` and `pause-in-call` with `clocks: "stopped"`).
 */
export const FAULT_CATEGORIES = ["pause", "clock", "partition", "crash", "delay", "suspend"] as const;
export type FaultCategory = (typeof FAULT_CATEGORIES)[number];

/**
 * The categories used when none are given. `suspend` is asked for by name: adding it here
 * would change every schedule generated from a given seed.
 */
export const DEFAULT_FAULT_CATEGORIES: readonly FaultCategory[] = [
  "pause",
  "clock",
  "partition",
  "crash",
  "delay",
];

/**
 * Kinds of pause: a client at a time, a client at a checkpoint (`pause-at`), a server, a
 * client some ms into one of its calls (`pause-in-call`).
 */
export const PAUSE_KINDS = ["client", "checkpoint", "server", "in-call"] as const;
export type PauseKind = (typeof PAUSE_KINDS)[number];

/**
 * The pauses the `pause` category generates unless bounds say otherwise. Pauses in calls are
 * asked for explicitly (real runs and real fuzzing do): adding them here would change every
 * simulator schedule generated from a given seed.
 */
export const DEFAULT_PAUSE_KINDS: readonly PauseKind[] = ["client", "checkpoint", "server"];

export interface WorkloadBounds {
  minClients: number;
  maxClients: number;
  /** Lock cycles per client: 1 … maxCycles. */
  maxCycles: number;
  maxThinkMs: number;
  /**
   * Keep below the TTL: a hold longer than the lease breaks any lease lock without a fault.
   * Holds close to it (the default, 80%) are realistic and make small clock errors matter.
   */
  maxHoldMs: number;
  /** Writes per hold: minWrites … maxWrites. */
  minWrites: number;
  maxWrites: number;
  /**
   * If set, a hold writes at least once per this many ms (up to maxWrites): a long hold keeps
   * writing to its end instead of writing once or twice far apart.
   */
  maxWriteGapMs?: number;
}

export interface FaultBounds {
  categories: readonly FaultCategory[];
  maxFaults: number;
  /** Faults start in [0, horizonMs]. */
  horizonMs: number;
  /** Lock servers in the world (server:0 … server:N-1). */
  servers: number;
  /** Clients a fault may name (client:0 … client:N-1); faults are fitted to the actual count. */
  maxClients: number;
  /** Whether `server:leader` is a fault target (consensus and zk worlds have a leader). */
  leader: boolean;
  /** Lock cycles per client, to bound `pause-at` occurrences. */
  maxCycles: number;
  /** Which pauses the `pause` category generates. */
  pauses: readonly PauseKind[];
  /** Checkpoints `pause-at` faults aim at. */
  checkpoints: readonly Checkpoint[];
  maxPauseMs: number;
  /**
   * Shortest pause of a client (default 1 ms). Runs that hunt raise it to about the lease: a
   * holder frozen for less than its lease seldom breaks anything.
   */
  minClientPauseMs: number;
  /** How far into a call a `pause-in-call` lands, at most. */
  maxPauseAfterMs: number;
  maxPartitionMs: number;
  /**
   * Partitions that cut one client off from every lock server (not from the resource) for
   * `min` … `max` ms, besides the other shapes; null (the default): none. Hunts of a lock
   * that renews its lease ask for them, longer than the lease: its renewals then fail while
   * the holder goes on.
   */
  clientIsolationMs: { min: number; max: number } | null;
  maxClockJumpMs: number;
  /** Clock drift rate bound, as a fraction (0.5: up to 50% fast or slow). */
  maxDriftRate: number;
  /**
   * Clock faults drawn toward harm, or null (the default): either way, as the simulator's seeds
   * have always drawn them. Aimed, a fault changes a server's clock as often as a client's
   * (faults/clock.ts says why); three times in four a server's clock jumps forward or runs
   * fast (its keys expire early) and a client's jumps back or runs slow (it times its hold and
   * its renewals long, and judges its lease by a clock that is behind), and every drift is at
   * least `minDriftRate` fast or slow: a slower one stretches no hold past its lease. Without
   * `serverClocks` (etcd, whose members ignore clock faults) only clients' clocks change. Hunts
   * ask for it (hunt.ts).
   */
  clockAim: { minDriftRate: number; serverClocks: boolean } | null;
  maxDelayMs: number;
  maxDelayWindowMs: number;
  /**
   * Which links delays and partitions reach: `"any"` (the default), links between any two
   * nodes, clients with each other included, as the simulator's seeds have always drawn them;
   * `"real"`, only links that carry traffic on real servers — a client's requests to a lock
   * server or the resource and their replies, and links between servers only where the servers
   * talk to each other (a cluster with a leader).
   */
  links: FaultLinks;
  maxRestartMs: number;
}

export type FaultLinks = "any" | "real";

/** Workload bounds derived from a target's schedule options. */
export function defaultWorkloadBounds(
  options: ScheduleOptions,
  overrides: Partial<WorkloadBounds> = {},
): WorkloadBounds {
  return {
    // Two clients at least: one client alone cannot break mutual exclusion.
    minClients: 2,
    maxClients: 4,
    maxCycles: 4,
    // Short thinks keep clients contending for the lock, where the bugs are.
    maxThinkMs: Math.floor(options.ttlMs / 4),
    maxHoldMs: Math.floor(options.ttlMs * 0.8),
    minWrites: 0,
    maxWrites: 3,
    ...overrides,
  };
}

/**
 * What changes for a lock that renews its lease while held: holds up to 3 × `leaseMs` (a holder
 * that renews may hold as long as it likes) with a write at least every quarter lease, so a
 * holder that lost its lease writes soon after the new holder's first write; and partitions
 * that cut one client off from every lock server for `isolationMs`, so renewals fail while the
 * holder goes on. (Holds of 0.8 × TTL end before such a lease could expire.)
 */
export function renewingBounds(
  leaseMs: number,
  isolationMs: { min: number; max: number },
): { workload: Partial<WorkloadBounds>; faults: Partial<FaultBounds> } {
  return {
    workload: { maxHoldMs: 3 * leaseMs, maxWrites: 12, maxWriteGapMs: Math.max(1, Math.floor(leaseMs / 4)) },
    faults: { clientIsolationMs: isolationMs },
  };
}

/** Fault bounds derived from a target's schedule options. */
export function defaultFaultBounds(
  options: ScheduleOptions,
  categories: readonly FaultCategory[],
  overrides: Partial<FaultBounds> = {},
): FaultBounds {
  const ttl = options.ttlMs;
  return {
    categories,
    maxFaults: 6,
    horizonMs: options.horizonMs,
    servers: options.servers,
    maxClients: 4,
    leader: false,
    maxCycles: 4,
    pauses: DEFAULT_PAUSE_KINDS,
    checkpoints: GENERATED_CHECKPOINTS,
    maxPauseMs: 3 * ttl,
    minClientPauseMs: 1,
    maxPauseAfterMs: Math.max(1, Math.floor(ttl / 5)),
    maxPartitionMs: 2 * ttl,
    clientIsolationMs: null,
    maxClockJumpMs: 2 * ttl,
    maxDriftRate: 0.9,
    clockAim: null,
    maxDelayMs: 2 * ttl,
    maxDelayWindowMs: ttl,
    links: "any",
    maxRestartMs: 2 * ttl,
    ...overrides,
  };
}

/** Rejects bounds that cannot produce a valid schedule, naming the call and the field. */
export function checkBounds(call: string, w: WorkloadBounds, f: FaultBounds): void {
  const fail = (field: string, what: string) => {
    throw new RangeError(`${call}: ${field} ${what}`);
  };
  if (!Number.isInteger(w.minClients) || w.minClients < 1) fail("minClients", "must be an integer >= 1");
  if (!Number.isInteger(w.maxClients) || w.maxClients < w.minClients)
    fail("maxClients", "must be >= minClients");
  if (!Number.isInteger(w.maxCycles) || w.maxCycles < 1) fail("maxCycles", "must be an integer >= 1");
  if (w.maxWrites < 0 || w.maxWrites > MAX_WRITES_PER_CYCLE)
    fail("maxWrites", `must be in 0..${MAX_WRITES_PER_CYCLE}`);
  if (!(w.minWrites >= 0 && w.minWrites <= w.maxWrites)) fail("minWrites", "must be in 0..maxWrites");
  if (w.maxWriteGapMs !== undefined && !(w.maxWriteGapMs >= 1)) fail("maxWriteGapMs", "must be >= 1");
  if (w.maxThinkMs < 0 || w.maxHoldMs < 0) fail("maxThinkMs/maxHoldMs", "must be >= 0");
  if (!Number.isInteger(f.maxFaults) || f.maxFaults < 0) fail("maxFaults", "must be an integer >= 0");
  if (f.servers < 1) fail("servers", "must be >= 1");
  for (const c of f.categories) {
    if (!FAULT_CATEGORIES.includes(c)) fail("categories", `contains unknown category "${c}"`);
  }
  for (const k of [
    "maxPauseMs",
    "maxPauseAfterMs",
    "maxPartitionMs",
    "maxClockJumpMs",
    "maxDelayMs",
    "maxDelayWindowMs",
    "maxRestartMs",
  ] as const) {
    if (!(f[k] >= 1)) fail(k, "must be >= 1");
  }
  const iso = f.clientIsolationMs;
  if (iso !== null && !(iso.min >= 1 && iso.max >= iso.min))
    fail("clientIsolationMs", "must be null or { min >= 1, max >= min }");
  if (!(f.minClientPauseMs >= 1 && f.minClientPauseMs <= f.maxPauseMs))
    fail("minClientPauseMs", "must be in 1..maxPauseMs");
  if (f.pauses.length === 0 || f.pauses.some((p) => !PAUSE_KINDS.includes(p))) {
    fail("pauses", `must be a non-empty list of ${PAUSE_KINDS.join(", ")}`);
  }
  if (f.checkpoints.length === 0 || f.checkpoints.some((c) => !checkpointSchema.options.includes(c))) {
    fail("checkpoints", `must be a non-empty list of ${checkpointSchema.options.join(", ")}`);
  }
  if (!(f.maxDriftRate >= 0 && f.maxDriftRate <= 0.9)) fail("maxDriftRate", "must be in [0, 0.9]");
  if (f.clockAim !== null && !(f.clockAim.minDriftRate >= 0 && f.clockAim.minDriftRate <= f.maxDriftRate))
    fail("clockAim.minDriftRate", "must be in [0, maxDriftRate]");
}
