/**
 * A target: something lockcheck can run a schedule against — a lock algorithm in a world.
 * `sim:<lock>` targets run in the deterministic simulator; real-server targets
 * (`redis:<lock>`, `etcd:<lock>`) are listed in src/targets/real.ts. The runner (fuzz, shrink,
 * replay) only ever sees this interface, so it works the same for every world.
 *
 * Contract for implementations:
 * - `run` executes one schedule (whose `target` may name another world: only the part after
 *   the colon has to match) and returns its history; it rejects only for failures of
 *   lockcheck itself, never for lock or network trouble, which belong in the history.
 * - Every resource `run` creates (processes, ports, temp dirs, paused servers) is released
 *   before its promise settles.
 * - A deterministic target returns identical histories for identical schedules.
 */
import type { Op } from "../history/op.js";
import type { LockAlgorithm } from "../locks/lock.js";
import type { Cluster } from "../real/cluster-kind.js";
import type { DockerRunOptions } from "../real/docker/world.js";
import { err, type InputError, ok, type Result } from "../result.js";
import type { ResourceMode, Schedule, ScheduleOptions } from "../schedule/schedule.js";

export interface TargetRun {
  ops: Op[];
  /** Informational counters (events, virtual time, messages …). */
  stats: Record<string, number>;
  /**
   * Real targets: one line per client process that your library ended by throwing outside a
   * call ("client:N: the library threw outside a call; …"), if any.
   */
  libraryCrashes?: string[];
}

export interface Target {
  /** "world:lock", e.g. "sim:redlock". */
  readonly name: string;
  /** One line for `--help` and error messages. */
  readonly description: string;
  readonly algorithm: LockAlgorithm;
  /** Schedule options this target runs with unless a schedule says otherwise. */
  readonly defaults: ScheduleOptions;
  /** Resource modes it supports; the first is the default. */
  readonly resources: readonly [ResourceMode, ...ResourceMode[]];
  /** Whether faults may aim at `server:leader` (consensus-based worlds). */
  readonly hasLeader: boolean;
  /** True if the same schedule always yields the same history (the simulator). */
  readonly deterministic: boolean;
  /** Real targets: which servers they start (redis-servers or an etcd cluster). */
  readonly realWorld?: "redis" | "etcd";
  /**
   * The lock renews its lease in the background while held (the keep-alive of sim:consensus and
   * etcd:lock, sim:zk's session heartbeats; a library adapter that says `renews: true`), so
   * generated schedules hold it past the lease and isolate clients from the lock servers for
   * longer than it (src/generators/schedule.ts, hunt.ts).
   */
  readonly renews?: boolean;
  run(schedule: Schedule): Promise<TargetRun>;
  /**
   * Real targets: a runner of many schedules on servers started once and reset between runs
   * (what `fuzz` uses); its `close` stops them. Absent for the simulator (nothing to reuse).
   */
  openSession?(opts: TargetSessionOptions): Promise<TargetSession>;
}

export interface TargetSessionOptions {
  /** Resource mode of every schedule the session runs. */
  resource: ResourceMode;
  /** Servers in the world (default: the target's). */
  servers?: number;
  /** Start redis-servers with the clock shim, for server clock faults. */
  clockFaults?: boolean;
  /** Where servers run (either way started once for the session and reset between runs). */
  cluster?: Cluster;
  /** With `cluster: "docker"`: images, Compose file, log. */
  docker?: DockerRunOptions;
}

/** Where a real target's servers run: local processes (the default) or containers (`docker`: images, Compose file). */
export type ServerPlacement = Pick<TargetSessionOptions, "cluster" | "docker">;

export interface TargetSession {
  /** `stopWhen`: asked now and then with the history so far; true ends the run there. */
  run(schedule: Schedule, stopWhen?: (ops: Op[]) => boolean): Promise<TargetRun>;
  /** Pids of the servers running now (on docker: of the containers' main processes); the same across runs when they are reused. */
  serverPids(): number[];
  close(): Promise<void>;
}

/** A resource mode the target supports, or an error (at `field`) listing those it does. */
export function supportedResource(
  target: Target,
  resource: ResourceMode,
  field: string,
): Result<ResourceMode, InputError> {
  if (target.resources.includes(resource)) return ok(resource);
  return err({ field, message: `${target.name} supports ${target.resources.join(", ")}, not ${resource}` });
}
