/**
 * Timed client faults aimed at the point of the client's work they hit. A pause or a partition
 * at a time lands wherever the client happens to be then; on real servers, where the clients'
 * pace differs from run to run, a replay often finds the client elsewhere (acquiring instead
 * of holding) and passes. The same fault at a checkpoint or inside a call lands at the same
 * point of the client's work on every run. From a failing run's history, a timed pause of a
 * client, or a timed partition between one client and nodes that are not clients (both ways,
 * or one way: a one-way partition from the client cuts what it sends, "out"; towards it, what
 * it receives, "in"), that came while the client held the lock (or was releasing it) becomes a
 * fault at the last checkpoint the client passed before it, `afterMs` as long after it as it
 * came:
 * - `acquired` (the acquire's ok), `before-write` (a write's invoke: during the write or in the
 *   sleep after it) or `before-release` (the release's invoke), numbered by the times the client
 *   had passed there;
 * - but when the client's next call (a write or a release) was sent within `NEXT_CALL_NEAR_MS`
 *   after the fault, at that call's checkpoint itself: what mattered is likely that the fault
 *   came before that call, and a replay's small differences in call times must not move it
 *   past.
 * A pause that came while an acquire was open becomes `pause-in-call` of that acquire, as long
 * after its invoke as it came; a partition then becomes a `partition-at` the `before-acquire`
 * checkpoint of that acquire (which every lock passes, a library too), as long after it.
 *
 * A timed delay of one client's link (to or from a node that is not a client) becomes a
 * `delay-at` of that link at the checkpoint of the first call it caught: the first call of the
 * client over that link (a write to the resource; an acquire or a release to a lock server)
 * that was open while the delay was, at `before-write`, `before-acquire` or `before-release`,
 * numbered by the client's calls of that kind before it, `afterMs` as long after the call was
 * made as the delay came if it came after. A delay that caught no call of its client stays
 * timed.
 */
import { type ClientOp, isNemesisOp, type Op } from "../../history/op.js";
import { afterMsField } from "../../schedule/faults/after-checkpoint.js";
import { clientOf } from "../../schedule/faults/numbers.js";
import type { Checkpoint, Fault, NodeRef, Schedule } from "../../schedule/schedule.js";
import { NS_PER_MS } from "./cycle-spans.js";

/** How soon before the client's next call a fault is aimed at that call's checkpoint instead. */
export const NEXT_CALL_NEAR_MS = 10;

/** Where a fault at a time hit a client's work. */
type Hit =
  | { kind: "after-checkpoint"; checkpoint: Checkpoint; occurrence: number; afterMs?: number }
  | { kind: "in-acquire"; occurrence: number; afterMs: number };

const msOf = (op: Op): number => op.time / NS_PER_MS;

/** Where something at `atMs` hit client `client`'s work in `ops`; null if in no hold, or after its last op. */
function hitAt(client: number, atMs: number, ops: readonly Op[]): Hit | null {
  const mine = ops.filter((o) => !isNemesisOp(o) && o.process === client);
  const before = mine.filter((o) => msOf(o) < atMs);
  const next = mine.find((o) => msOf(o) >= atMs);
  const last = before.at(-1);
  if (next === undefined || last === undefined) return null;
  const count = (f: Op["f"], type: Op["type"]) => before.filter((o) => o.f === f && o.type === type).length;
  if (last.f === "acquire" && last.type === "invoke") {
    const afterMs = Math.max(0, Math.floor(atMs - msOf(last)));
    return { kind: "in-acquire", occurrence: count("acquire", "invoke") - 1, afterMs };
  }
  if (
    next.type === "invoke" &&
    (next.f === "write" || next.f === "release") &&
    msOf(next) - atMs <= NEXT_CALL_NEAR_MS
  ) {
    const checkpoint = next.f === "write" ? "before-write" : "before-release";
    return { kind: "after-checkpoint", checkpoint, occurrence: count(next.f, "invoke") };
  }
  const anchor = anchorOf(last, before);
  if (anchor === null) return null;
  // Rounded up: a fault that came inside a call, however soon, stays after the call was made.
  const afterMs = Math.ceil(atMs - anchor.ms);
  return {
    kind: "after-checkpoint",
    checkpoint: anchor.checkpoint,
    occurrence: anchor.occurrence,
    ...afterMsField(afterMs > 0 ? afterMs : undefined),
  };
}

/**
 * The last checkpoint a client passed, given its last op `last` (of `before`, its ops so far):
 * the grant's `acquired`, a write's `before-write` (also once the write was answered), the
 * release's `before-release`; null when it held nothing (its release answered, its acquire
 * failed).
 */
function anchorOf(
  last: Op,
  before: readonly Op[],
): { checkpoint: Checkpoint; occurrence: number; ms: number } | null {
  const invokes = (f: Op["f"]) => before.filter((o) => o.f === f && o.type === "invoke");
  if (last.f === "acquire" && last.type === "ok") {
    const grants = before.filter((o) => o.f === "acquire" && o.type === "ok").length;
    return { checkpoint: "acquired", occurrence: grants - 1, ms: msOf(last) };
  }
  if (last.f === "write") {
    const writes = invokes("write");
    return { checkpoint: "before-write", occurrence: writes.length - 1, ms: msOf(writes.at(-1)!) };
  }
  if (last.f === "release" && last.type === "invoke") {
    return { checkpoint: "before-release", occurrence: invokes("release").length - 1, ms: msOf(last) };
  }
  return null;
}

/** Where the client's timed pause at `atMs` hit its work in `ops`, as a fault of its own; null if nowhere. */
export function aimedPause(
  client: number,
  atMs: number,
  durationMs: number,
  ops: readonly Op[],
): Fault | null {
  const hit = hitAt(client, atMs, ops);
  if (hit === null) return null;
  if (hit.kind === "after-checkpoint") return { kind: "pause-at", client, ...hitPoint(hit), durationMs };
  return {
    kind: "pause-in-call",
    client,
    call: "acquire",
    occurrence: hit.occurrence,
    afterMs: hit.afterMs,
    durationMs,
  };
}

const hitPoint = (hit: Extract<Hit, { kind: "after-checkpoint" }>) => ({
  checkpoint: hit.checkpoint,
  occurrence: hit.occurrence,
  ...afterMsField(hit.afterMs),
});

/** A hit inside an acquire, as a point after that acquire's `before-acquire` checkpoint. */
const acquireHitPoint = (hit: Extract<Hit, { kind: "in-acquire" }>) => ({
  checkpoint: "before-acquire" as const,
  occurrence: hit.occurrence,
  ...afterMsField(hit.afterMs > 0 ? hit.afterMs : undefined),
});

/**
 * A timed partition as `partition-at` the point of its client's work it hit in `ops`: only a
 * partition with one client on one side and no client on the other, that came while the client
 * held the lock, released it or was acquiring it; null otherwise. A one-way partition keeps its
 * direction.
 */
export function aimedPartition(f: Extract<Fault, { kind: "partition" }>, ops: readonly Op[]): Fault | null {
  const sides: [string[], string[], "out" | "in" | undefined][] = [
    [f.a, f.b, f.oneWay ? "out" : undefined],
    [f.b, f.a, f.oneWay ? "in" : undefined],
  ];
  for (const [one, others, direction] of sides) {
    const client = one.length === 1 ? clientOf(one[0]!) : undefined;
    if (client === undefined || others.some((n) => clientOf(n) !== undefined)) continue;
    const hit = hitAt(client, f.at, ops);
    if (hit === null) return null;
    return {
      kind: "partition-at",
      client,
      ...(hit.kind === "after-checkpoint" ? hitPoint(hit) : acquireHitPoint(hit)),
      durationMs: f.durationMs,
      nodes: others,
      ...(direction === undefined ? {} : { direction }),
    };
  }
  return null;
}

/** The checkpoint a client passes as it makes each kind of call. */
const CHECKPOINT_OF_CALL = {
  acquire: "before-acquire",
  write: "before-write",
  release: "before-release",
} as const satisfies Record<ClientOp["f"], Checkpoint>;

/** The calls a client makes over its link to `node`: writes to the resource, the others to a lock server. */
const callsOver = (node: NodeRef): ClientOp["f"][] =>
  node === "resource" ? ["write"] : ["acquire", "release"];

/** A call of a client: its kind, how many of that kind it had made before, when it was made. */
interface Call {
  f: ClientOp["f"];
  occurrence: number;
  invokedMs: number;
}

/** The first call of `kinds` by `client` in `ops` that was open during [fromMs, untilMs); null if none. */
function firstCallOpen(
  client: number,
  kinds: readonly ClientOp["f"][],
  fromMs: number,
  untilMs: number,
  ops: readonly Op[],
): Call | null {
  const made = new Map<ClientOp["f"], number>();
  let open: Call | null = null;
  for (const o of ops) {
    if (isNemesisOp(o) || o.process !== client) continue;
    if (o.type !== "invoke") {
      // A client makes one call at a time: this completes the open one.
      if (open !== null && msOf(o) >= fromMs) return open;
      open = null;
      continue;
    }
    if (msOf(o) >= untilMs) return null;
    const occurrence = made.get(o.f) ?? 0;
    made.set(o.f, occurrence + 1);
    open = kinds.includes(o.f) ? { f: o.f, occurrence, invokedMs: msOf(o) } : null;
  }
  // Never answered: open from its invoke on.
  return open;
}

/**
 * A timed delay of one client's link as `delay-at` the checkpoint of the first call of that
 * client over that link it caught in `ops` (see the top of this file); null if it is not of one
 * client's link, or caught no such call.
 */
export function aimedDelay(f: Extract<Fault, { kind: "delay" }>, ops: readonly Op[]): Fault | null {
  const sender = clientOf(f.from);
  const receiver = clientOf(f.to);
  if ((sender === undefined) === (receiver === undefined)) return null;
  const out = sender !== undefined;
  const client = (sender ?? receiver)!;
  const node = out ? f.to : f.from;
  const call = firstCallOpen(client, callsOver(node), f.at, f.at + f.durationMs, ops);
  if (call === null) return null;
  // Rounded up, as for pauses: a delay that came after the call was made stays after it.
  const afterMs = Math.ceil(f.at - call.invokedMs);
  return {
    kind: "delay-at",
    client,
    checkpoint: CHECKPOINT_OF_CALL[call.f],
    occurrence: call.occurrence,
    ...afterMsField(afterMs > 0 ? afterMs : undefined),
    node,
    direction: out ? "out" : "in",
    durationMs: f.durationMs,
    extraMs: f.extraMs,
  };
}

/** `s` with every timed client pause, partition and delay aimed by the failing run `ops`; null if none could be. */
export function withFaultsAimed(s: Schedule, ops: readonly Op[]): Schedule | null {
  let changed = false;
  const faults = s.faults.map((f) => {
    let aimed: Fault | null = null;
    if (f.kind === "partition") aimed = aimedPartition(f, ops);
    else if (f.kind === "delay") aimed = aimedDelay(f, ops);
    else if (f.kind === "pause") {
      const client = clientOf(f.node);
      if (client !== undefined) aimed = aimedPause(client, f.at, f.durationMs, ops);
    }
    if (aimed === null) return f;
    changed = true;
    return aimed;
  });
  return changed ? { ...s, faults } : null;
}
