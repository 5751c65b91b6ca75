/**
 * Timed client pauses aimed at the point of the client's work they hit. A pause at a time
 * lands wherever the client happens to be then; on real servers, where the clients' pace
 * differs from run to run, a replay often finds the client elsewhere (acquiring instead of
 * holding) and passes. The same pause at a checkpoint or inside a call lands at the same
 * point of the client's work on every run. From a failing run's history, a timed pause of a
 * client becomes:
 * - `pause-at before-write` (or `before-release`) when the client's next call was a write
 *   (a release): the pause of a holder between two of its calls, numbered by the writes
 *   (releases) it had made;
 * - `pause-in-call` of its acquire, as long after the invoke as it came, when it came while
 *   an acquire was open.
 */
import { isNemesisOp, type Op } from "../../history/op.js";
import { clientOf } from "../../schedule/faults/numbers.js";
import type { Fault, Schedule } from "../../schedule/schedule.js";
import { NS_PER_MS } from "./cycle-spans.js";

/** Where the client's timed pause at `atMs` hit its work in `ops`, as a fault of its own; null if nowhere. */
export function aimedPause(
  client: number,
  atMs: number,
  durationMs: number,
  ops: readonly Op[],
): Fault | null {
  const mine = ops.filter((o) => !isNemesisOp(o) && o.process === client);
  const before = mine.filter((o) => o.time / NS_PER_MS < atMs);
  const next = mine.find((o) => o.time / NS_PER_MS >= atMs);
  if (next === undefined) return null;
  const invoked = (f: Op["f"]) => before.filter((o) => o.type === "invoke" && o.f === f);
  if (next.type === "invoke" && (next.f === "write" || next.f === "release")) {
    const last = before.at(-1);
    // Between calls of a hold: its last call before the pause was answered.
    if (last === undefined || last.type === "invoke") return null;
    const checkpoint = next.f === "write" ? "before-write" : "before-release";
    return { kind: "pause-at", client, checkpoint, occurrence: invoked(next.f).length, durationMs };
  }
  if (next.f === "acquire" && next.type !== "invoke") {
    const acquires = invoked("acquire");
    const open = acquires.at(-1);
    if (open === undefined) return null;
    const afterMs = Math.max(0, Math.floor(atMs - open.time / NS_PER_MS));
    return {
      kind: "pause-in-call",
      client,
      call: "acquire",
      occurrence: acquires.length - 1,
      afterMs,
      durationMs,
    };
  }
  return null;
}

/** `s` with every timed client pause aimed (`aimedPause`) by the failing run `ops`; null if none could be. */
export function withPausesAimed(s: Schedule, ops: readonly Op[]): Schedule | null {
  let changed = false;
  const faults = s.faults.map((f) => {
    if (f.kind !== "pause") return f;
    const client = clientOf(f.node);
    if (client === undefined) return f;
    const aimed = aimedPause(client, f.at, f.durationMs, ops);
    if (aimed === null) return f;
    changed = true;
    return aimed;
  });
  return changed ? { ...s, faults } : null;
}
