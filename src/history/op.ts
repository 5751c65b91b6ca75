/**
 * The history data model: one operation per line, Jepsen's model.
 *
 * Every client call is recorded twice: an `invoke` when the call starts and a completion
 * (`ok`, `fail` or `info`) when the client learns its outcome. `info` means "may or may not
 * have happened" — a timeout, a lost reply, a crash — exactly as in Jepsen: checkers must
 * treat such an operation as possibly having taken effect at any time after its invoke.
 *
 * Time is nanoseconds since the run started, as an integer. In the simulator it is the true
 * (global, virtual) time, never a node's skewed local clock; against real servers it is the
 * monotonic clock of the machine. Checkers order events by `index`, which follows `time`.
 */

/** Which half of a call an event is. */
export type OpType = "invoke" | "ok" | "fail" | "info";

/**
 * Which client made a call: a non-negative integer (lockcheck numbers its clients 0, 1, …) or
 * any other non-empty string (histories from other tools may name them). Checkers keep
 * per-client state in maps (process-map.ts), so ids can be as large or sparse as a recorder likes.
 */
export type ClientId = number | string;

/** A client, or the fault injector. */
export type ProcessId = ClientId | "nemesis";

/**
 * Identity of one acquisition of a lock: which grant a resource write belongs to.
 * By convention `"<process>:<n>"` (client 3's fifth acquisition is "3:5"); checkers only
 * compare grant ids for equality.
 */
export type GrantId = string;

/** Fields every event carries. */
interface OpBase {
  /** Position in the history, 0-based, strictly increasing by one. */
  index: number;
  /** Nanoseconds since the run started; non-decreasing within one process. */
  time: number;
  process: ProcessId;
  type: OpType;
  /** Free-form payload, as Jepsen's :value. */
  value?: unknown;
  /** Why a call failed or is uncertain (e.g. "timeout", "not-held"). */
  error?: string;
}

/**
 * Acquire a lock. The invoke carries the lock name and the lease time asked for; an `ok`
 * completion carries the grant identity and, when the lock service hands one out, the fencing
 * token. Tokens may exceed 2^53 (etcd revisions are int64), so they are BigInts in memory.
 */
export interface AcquireOp extends OpBase {
  process: ClientId;
  f: "acquire";
  lock: string;
  grant?: GrantId;
  token?: bigint;
  /**
   * The lease time (ms) the client asked for (on the invoke; a completion repeats it). A lease
   * granted in this call is held until at least `ttlMs` after the invoke unless released
   * (token-order.ts counts on it). Absent in histories that do not say.
   */
  ttlMs?: number;
}

/** Release a lock the client believes it holds. */
export interface ReleaseOp extends OpBase {
  process: ClientId;
  f: "release";
  lock: string;
  grant?: GrantId;
}

/**
 * A write to the protected resource, made while the client believes it holds `grant`.
 * It carries the token it presented (if any). An `ok` completion says whether the resource
 * `accepted` it (a fenced resource rejects a token lower than the highest it has seen);
 * a rejected write is an `ok` with `accepted: false`, because the resource did answer.
 */
export interface WriteOp extends OpBase {
  process: ClientId;
  f: "write";
  lock: string;
  grant: GrantId;
  token?: bigint;
  accepted?: boolean;
  /**
   * The resource's own apply order, on an accepted write's `ok` when the resource reports it:
   * a number that the resource makes strictly greater for every write it applies (one counter
   * for all locks is fine; etcd's revision is one). With it, checkers know in which order two
   * accepted writes were applied even when the client-observed calls overlap. It may exceed
   * 2^53 (written like tokens). On an `info` completion: the resource applied the write although
   * its client gave up on it (read from the resource's log after the run; applied-writes.ts).
   */
  seq?: bigint;
}

/** Fault kinds the nemesis records (the start and the end of a fault are separate ops). */
export type NemesisF =
  | "pause"
  | "resume"
  | "crash"
  | "restart"
  | "partition"
  | "heal"
  | "clock-jump"
  | "clock-drift"
  | "delay"
  | "delay-end";

/**
 * A fault injected by the nemesis. `node` names what it hit ("client:1", "server:2",
 * "resource"); `value` carries fault parameters (durations, offsets, partition groups).
 */
export interface NemesisOp extends OpBase {
  process: "nemesis";
  f: NemesisF;
  node?: string;
}

export type ClientOp = AcquireOp | ReleaseOp | WriteOp;
export type Op = ClientOp | NemesisOp;

/** The `f` of any op lockcheck records. */
export type OpF = Op["f"];

export const CLIENT_FS = ["acquire", "release", "write"] as const satisfies readonly ClientOp["f"][];
export const NEMESIS_FS = [
  "pause",
  "resume",
  "crash",
  "restart",
  "partition",
  "heal",
  "clock-jump",
  "clock-drift",
  "delay",
  "delay-end",
] as const satisfies readonly NemesisF[];
export const OP_TYPES = ["invoke", "ok", "fail", "info"] as const satisfies readonly OpType[];

export function isNemesisOp(op: Op): op is NemesisOp {
  return op.process === "nemesis";
}
