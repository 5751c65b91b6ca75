/**
 * Which of a schedule's faults a run's history shows took effect. A fault "never fired" when
 * the nemesis recorded no start for it (its time lay after the run ended, or it was aimed at
 * a node the world does not have), or recorded it as having no effect: `unsupported` (a link
 * lockcheck does not proxy) or `ignored` (a clock fault etcd cannot feel). Dropping such a
 * fault leaves the run as it was, so a shrinker may drop them without trying each one.
 *
 * Matching is by kind and target, in time order: each recorded start is claimed by at most
 * one fault, by the `startedBy` of its kind (src/schedule/faults/). A kind without one counts
 * as fired (never dropped unseen).
 */
import { isNemesisOp, type NemesisOp, type Op } from "../../history/op.js";
import { descriptorOf } from "../../schedule/faults/index.js";
import type { Fault, Schedule } from "../../schedule/schedule.js";

function nemesisValue(op: NemesisOp): Record<string, unknown> {
  const v = (op as { value?: unknown }).value;
  return typeof v === "object" && v !== null ? (v as Record<string, unknown>) : {};
}

/** Whether a recorded nemesis start is the start of `f` (and `f` had an effect); undefined: not its op. */
function startOf(f: Fault, op: NemesisOp): boolean | undefined {
  return descriptorOf(f).startedBy?.(f, { f: op.f, node: op.node, value: nemesisValue(op) });
}

/** A kind whose descriptor cannot match its start in a history counts as fired. */
const matchable = (f: Fault): boolean => descriptorOf(f).startedBy !== undefined;

/** For each fault of `schedule`, whether the run's history `ops` shows it took effect. */
export function firedFaults(schedule: Schedule, ops: readonly Op[]): boolean[] {
  const starts = ops.filter(isNemesisOp);
  const claimed = new Set<number>();
  // Timed faults claim starts in the order they were due; checkpoint pauses after them.
  const order = schedule.faults
    .map((f, i) => ({ f, i, due: "at" in f ? f.at : Number.POSITIVE_INFINITY }))
    .sort((x, y) => x.due - y.due || x.i - y.i);
  const fired = schedule.faults.map((f) => !matchable(f));
  for (const { f, i } of order) {
    if (fired[i]) continue;
    for (let k = 0; k < starts.length; k++) {
      if (claimed.has(k)) continue;
      const op = starts[k];
      if (op === undefined) continue;
      const match = startOf(f, op);
      if (match === undefined) continue;
      claimed.add(k);
      fired[i] = match;
      break;
    }
  }
  return fired;
}

/** `schedule` without the faults its run's history shows never took effect; null if all did. */
export function withoutUnfiredFaults(schedule: Schedule, ops: readonly Op[]): Schedule | null {
  const fired = firedFaults(schedule, ops);
  if (fired.every((x) => x)) return null;
  return { ...schedule, faults: schedule.faults.filter((_, i) => fired[i]) };
}
