/**
 * Where each client's lock cycles fell in a history, for the shrinker: when a cycle's
 * acquire was sent and answered, when the cycle ended, which grant it got, and how often it
 * passed each checkpoint; and when each of a schedule's faults fired. Times are ms of true
 * time since the run started (histories store ns).
 *
 * The workload numbers a client's acquisitions in order (src/workload/client.ts): its n-th
 * acquire invoke is cycle n of its plan and hands out grant "<client>:<n>".
 */
import { type AcquireOp, isNemesisOp, type Op } from "../../history/op.js";
import { descriptorOf } from "../../schedule/faults/index.js";
import { type CallKind, type Checkpoint, type Fault, isTimedFault } from "../../schedule/schedule.js";

export interface CycleSpan {
  client: number;
  /** Position in the client's plan. */
  cycle: number;
  /** Grant the acquire handed out; undefined if it was not granted. */
  grant: string | undefined;
  acquireSentMs: number;
  /** When the acquire completed (ok, fail or info); undefined if it never did. */
  acquireDoneMs: number | undefined;
  /** When the cycle's last call completed (or its acquire was sent, if none did). */
  endMs: number;
  writes: number;
  releases: number;
}

export interface HistorySpans {
  /** Each client's cycles, in plan order. */
  byClient: Map<number, CycleSpan[]>;
  byGrant: Map<string, CycleSpan>;
  /** The quickest granted acquire, sent to ok (ms): about one round trip to the lock. */
  fastestAcquireMs: number | undefined;
}

/** Histories stamp ns; the shrinker reasons in ms. */
export const NS_PER_MS = 1e6;

export function cycleSpans(ops: readonly Op[]): HistorySpans {
  const byClient = new Map<number, CycleSpan[]>();
  const byGrant = new Map<string, CycleSpan>();
  let fastestAcquireMs: number | undefined;
  for (const op of ops) {
    // Runs of lockcheck's own number their clients; a named client is not one of its cycles.
    if (isNemesisOp(op) || typeof op.process !== "number") continue;
    const ms = op.time / NS_PER_MS;
    const spans = byClient.get(op.process) ?? [];
    byClient.set(op.process, spans);
    if (op.f === "acquire" && op.type === "invoke") {
      spans.push({
        client: op.process,
        cycle: spans.length,
        grant: undefined,
        acquireSentMs: ms,
        acquireDoneMs: undefined,
        endMs: ms,
        writes: 0,
        releases: 0,
      });
      continue;
    }
    const span = spans.at(-1);
    if (span === undefined) continue;
    if (op.type !== "invoke") span.endMs = ms;
    if (op.f === "acquire") {
      span.acquireDoneMs = ms;
      if (op.type === "ok") {
        span.grant = (op as AcquireOp).grant;
        if (span.grant !== undefined) byGrant.set(span.grant, span);
        const took = ms - span.acquireSentMs;
        if (fastestAcquireMs === undefined || took < fastestAcquireMs) fastestAcquireMs = took;
      }
    } else if (op.type === "invoke") {
      if (op.f === "write") span.writes++;
      else span.releases++;
    }
  }
  return { byClient, byGrant, fastestAcquireMs };
}

/**
 * How many times a cycle passed `checkpoint` (acquire-sent counts once per cycle: retries
 * inside an acquire are not in the history).
 */
export function checkpointHits(span: CycleSpan, checkpoint: Checkpoint): number {
  switch (checkpoint) {
    case "before-acquire":
    case "acquire-sent":
      return 1;
    case "acquired":
      return span.grant === undefined ? 0 : 1;
    case "before-write":
      return span.writes;
    case "before-release":
      return span.releases;
  }
}

/** How many calls of kind `call` a cycle invoked (the count `pause-in-call` occurrences use). */
export function callHits(span: CycleSpan, call: CallKind): number {
  switch (call) {
    case "acquire":
      return 1;
    case "write":
      return span.writes;
    case "release":
      return span.releases;
  }
}

/**
 * The cycle a fault that fired at `ms` hit: a checkpoint pause hits the last cycle whose
 * acquire had been sent; a timed fault hits the cycle the client was in or thinking before
 * (undefined once the client was done).
 */
export function cycleHit(spans: readonly CycleSpan[], f: Fault, ms: number): CycleSpan | undefined {
  if (!isTimedFault(f)) return spans.findLast((s) => s.acquireSentMs <= ms);
  return spans.find((s) => ms <= s.endMs);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null;
}

/**
 * When a fault fired (ms), or undefined if the history shows it never did. Timed faults fire
 * at `at`; a `pause-at` fires when the nemesis recorded a pause of that client at that
 * checkpoint and occurrence; a `pause-in-call` when it recorded one of that call and occurrence;
 * a `partition-at` or `delay-at` when it recorded the client's partition or delay at that
 * checkpoint and occurrence.
 */
export function firedAtMs(f: Fault, ops: readonly Op[]): number | undefined {
  if (isTimedFault(f)) return f.at;
  if (f.kind === "partition-at" || f.kind === "delay-at") {
    const startedBy = descriptorOf(f).startedBy;
    const op = ops.find(
      (o) =>
        isNemesisOp(o) &&
        startedBy?.(f, { f: o.f, node: o.node, value: isObject(o.value) ? o.value : {} }) === true,
    );
    return op === undefined ? undefined : op.time / NS_PER_MS;
  }
  const node = `client:${f.client}`;
  const same = (v: Record<string, unknown>): boolean =>
    f.kind === "pause-at"
      ? v.checkpoint === f.checkpoint && v.occurrence === f.occurrence && v.afterMs === f.afterMs
      : v.call === f.call && v.occurrence === f.occurrence;
  const op = ops.find(
    (o) =>
      o.process === "nemesis" && o.f === "pause" && o.node === node && isObject(o.value) && same(o.value),
  );
  return op === undefined ? undefined : op.time / NS_PER_MS;
}
