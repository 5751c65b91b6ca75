/**
 * Timed client faults aimed at the point of the client's work they hit. A pause or a partition
 * at a time lands wherever the client happens to be then; on real servers, where the clients'
 * pace differs from run to run, a replay often finds the client elsewhere (acquiring instead
 * of holding) and passes. The same fault at a checkpoint or inside a call lands at the same
 * point of the client's work on every run. From a failing run's history:
 * - a timed pause of a client becomes `pause-at before-write` (or `before-release`) when the
 *   client's next call was a write (a release): the pause of a holder between two of its
 *   calls, numbered by the writes (releases) it had made; or `pause-in-call` of its acquire,
 *   as long after the invoke as it came, when it came while an acquire was open;
 * - a timed two-way partition between one client and nodes that are not clients becomes
 *   `partition-at` the same checkpoint, when it came between two calls of a hold.
 */
import { isNemesisOp, type Op } from "../../history/op.js";
import { clientOf } from "../../schedule/faults/numbers.js";
import type { Checkpoint, Fault, Schedule } from "../../schedule/schedule.js";
import { NS_PER_MS } from "./cycle-spans.js";

/** Where a fault at a time hit a client's work. */
type Hit =
  | { kind: "between-calls"; checkpoint: Checkpoint; occurrence: number }
  | { kind: "in-acquire"; occurrence: number; afterMs: number };

/** Where something at `atMs` hit client `client`'s work in `ops`; null if at no point a checkpoint names. */
function hitAt(client: number, atMs: number, ops: readonly Op[]): Hit | null {
  const mine = ops.filter((o) => !isNemesisOp(o) && o.process === client);
  const before = mine.filter((o) => o.time / NS_PER_MS < atMs);
  const next = mine.find((o) => o.time / NS_PER_MS >= atMs);
  if (next === undefined) return null;
  const invoked = (f: Op["f"]) => before.filter((o) => o.type === "invoke" && o.f === f);
  if (next.type === "invoke" && (next.f === "write" || next.f === "release")) {
    const last = before.at(-1);
    // Between calls of a hold: its last call before the fault was answered.
    if (last === undefined || last.type === "invoke") return null;
    const checkpoint = next.f === "write" ? "before-write" : "before-release";
    return { kind: "between-calls", checkpoint, occurrence: invoked(next.f).length };
  }
  if (next.f === "acquire" && next.type !== "invoke") {
    const acquires = invoked("acquire");
    const open = acquires.at(-1);
    if (open === undefined) return null;
    const afterMs = Math.max(0, Math.floor(atMs - open.time / NS_PER_MS));
    return { kind: "in-acquire", occurrence: acquires.length - 1, afterMs };
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
  if (hit.kind === "between-calls") return { kind: "pause-at", client, ...hitPoint(hit), durationMs };
  return {
    kind: "pause-in-call",
    client,
    call: "acquire",
    occurrence: hit.occurrence,
    afterMs: hit.afterMs,
    durationMs,
  };
}

const hitPoint = (hit: Extract<Hit, { kind: "between-calls" }>) => ({
  checkpoint: hit.checkpoint,
  occurrence: hit.occurrence,
});

/**
 * A timed partition as `partition-at` the point of its client's work it hit in `ops`: only a
 * two-way partition with one client on one side and no client on the other, that came between
 * two calls of a hold; null otherwise.
 */
export function aimedPartition(f: Extract<Fault, { kind: "partition" }>, ops: readonly Op[]): Fault | null {
  if (f.oneWay) return null;
  const sides: [string[], string[]][] = [
    [f.a, f.b],
    [f.b, f.a],
  ];
  for (const [one, others] of sides) {
    const client = one.length === 1 ? clientOf(one[0]!) : undefined;
    if (client === undefined || others.some((n) => clientOf(n) !== undefined)) continue;
    const hit = hitAt(client, f.at, ops);
    if (hit?.kind !== "between-calls") return null;
    return { kind: "partition-at", client, ...hitPoint(hit), durationMs: f.durationMs, nodes: others };
  }
  return null;
}

/** `s` with every timed client pause and partition aimed by the failing run `ops`; null if none could be. */
export function withFaultsAimed(s: Schedule, ops: readonly Op[]): Schedule | null {
  let changed = false;
  const faults = s.faults.map((f) => {
    let aimed: Fault | null = null;
    if (f.kind === "partition") aimed = aimedPartition(f, ops);
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
