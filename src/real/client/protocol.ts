/**
 * The messages between lockcheck (the parent) and a client child process, over Node's IPC
 * channel, and the line format of the events file each child appends to.
 *
 * Times are nanoseconds of the machine-wide monotonic clock (process.hrtime.bigint() is
 * CLOCK_MONOTONIC, shared by every process) minus the run's start `t0`, stamped in the child
 * right before a request is sent and right after its reply arrived. The parent never stamps
 * client events on receipt: a paused child's reports arrive late, and an invoke stamped late
 * could make a history look like a violation that never happened.
 */
import type { Checkpoint, ClientPlan, PauseClocks, ResourceMode } from "../../schedule/schedule.js";
import type { CompletionFields, InvokeFields } from "../../workload/client.js";
import type { PauseInCallFired, PauseInCallSpec } from "./pause-in-call.js";

/** Everything a child needs to run one client; sent once, as the first message. */
export interface ChildConfig {
  runId: string;
  clientId: number;
  /** Lock algorithm name (src/locks/), e.g. "redlock". */
  algorithm: string;
  /**
   * File URL of a user's module whose default export (or `lock`) is the algorithm, named
   * `algorithm` (docs/custom-locks.md); absent for lockcheck's own algorithms.
   */
  algorithmModule?: string;
  /**
   * Set when the lock is a library adapter (src/locks/library-lock.ts): the client imports
   * `module` and drives the library's own client, connected to `endpoints`.
   */
  library?: LibraryChildConfig;
  plan: ClientPlan;
  workload: { lockName: string; ttlMs: number; horizonMs: number };
  callTimeoutMs: number;
  /** Proxy ports of this client's links to server:0 … server:N-1 (Redis targets). */
  redisPorts: number[];
  /** Proxy ports of this client's links to each etcd member (etcd targets). */
  etcdPorts: number[];
  resource: { mode: ResourceMode; port: number | null };
  /** This client's `pause-at` faults. */
  pauseAt: (CheckpointFaultPoint & { durationMs: number; clocks?: PauseClocks })[];
  /**
   * Where this client's `partition-at` and `delay-at` faults cut or delay its links (absent:
   * nowhere); the parent knows how. One entry a point, however many faults start there.
   */
  linksAt?: CheckpointFaultPoint[];
  /** This client's `pause-in-call` faults (absent: none). */
  pauseInCall?: PauseInCallSpec[];
  /** Where the child appends its events, one JSON line each. */
  eventsFile: string;
}

/** The `occurrence`-th (0-based) time a client reaches `checkpoint`. */
export interface CheckpointHit {
  checkpoint: Checkpoint;
  occurrence: number;
}

/** Where a checkpoint fault starts: at a hit, or `afterMs` after it by the client's timer. */
export interface CheckpointFaultPoint extends CheckpointHit {
  afterMs?: number;
}

/** One string per point: equal points, equal keys. */
export const pointKey = (p: CheckpointFaultPoint): string =>
  `${p.checkpoint}#${p.occurrence}+${p.afterMs ?? 0}`;

export interface LibraryChildConfig {
  /** File URL of the adapter module. */
  module: string;
  /** Adapter options recorded in the schedule, handed to `connect`. */
  options: Record<string, unknown>;
  /** The lock servers as this client reaches them (its link proxies, or the user's servers). */
  endpoints: { host: string; port: number }[];
}

export type ParentMessage =
  | { type: "init"; config: ChildConfig }
  /** Go: `t0` is the run's start, ns of the monotonic clock, as a decimal string. */
  | { type: "start"; t0: string }
  /** Client-side clock faults: step by deltaMs, or set the drift rate. */
  | { type: "clock-jump"; deltaMs: number }
  | { type: "clock-drift"; rate: number }
  /** The client's link changes of this point are in place (or failed): go on. */
  | ({ type: "links-changed" } & CheckpointFaultPoint);

export type ChildMessage =
  | { type: "ready" }
  /** One event was recorded (for progress display; the file is the record). */
  | { type: "event"; kind: "invoke" | "ok" | "fail" | "info" }
  /**
   * Sent just before the child SIGSTOPs itself at a checkpoint; the parent SIGCONTs it
   * `durationMs` after `time`.
   */
  | {
      type: "pause-me";
      checkpoint: Checkpoint;
      occurrence: number;
      afterMs?: number;
      durationMs: number;
      time: number;
      clocks?: PauseClocks;
    }
  /**
   * The child reached a point where faults change its links (`linksAt`); at a checkpoint itself
   * it waits for `links-changed` before it goes on (`afterMs` later it has gone on). `time`: ns
   * since t0.
   */
  | ({ type: "change-links"; time: number } & CheckpointFaultPoint)
  /** The same for a `pause-in-call` fault that came due (see pause-in-call.ts). */
  | ({ type: "pause-in-call"; time: number } & PauseInCallFired)
  | { type: "done" }
  /**
   * The child stops. `library`: the user's library threw outside any call (the process ends as
   * the service would: part of what is tested); otherwise lockcheck could not drive the client.
   */
  | { type: "failed"; message: string; library?: true };

/** One line of a child's events file. Tokens are decimal strings (they may exceed 2^53). */
export type EventLine =
  | { call: number; time: number; type: "invoke"; fields: WireFields }
  | { call: number; time: number; type: "ok" | "fail" | "info"; fields: WireFields };

/** Invoke or completion fields as written to the file: the token (if any) as a decimal string. */
export type WireFields = Record<string, unknown> & { token?: string };

export function tokenToWire(fields: InvokeFields | CompletionFields): WireFields {
  const { token, seq, ...rest } = fields as { token?: bigint; seq?: bigint };
  const out: WireFields = token === undefined ? rest : { ...rest, token: token.toString() };
  // A write's seq (the resource's apply order) is a BigInt too.
  return seq === undefined ? out : { ...out, seq: seq.toString() };
}

/** Back from the file: the token (if any) as a BigInt again. */
export function tokenFromWire(fields: WireFields): Record<string, unknown> {
  const { token, seq, ...rest } = fields;
  const out: Record<string, unknown> = token === undefined ? rest : { ...rest, token: BigInt(token) };
  return typeof seq === "string" ? { ...out, seq: BigInt(seq) } : out;
}
