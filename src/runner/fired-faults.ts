/**
 * Which of a schedule's faults a run's history shows took effect. A fault "never fired" when
 * the nemesis recorded no start for it (its time lay after the run ended, or it was aimed at
 * a node the world does not have), or recorded it as having no effect: `unsupported` (a link
 * lockcheck does not proxy) or `ignored` (a clock fault etcd cannot feel). Dropping such a
 * fault leaves the run as it was, so a shrinker may drop them without trying each one.
 *
 * Matching is by kind and target, in time order: each recorded start is claimed by at most
 * one fault. A fault kind this file does not know counts as fired (never dropped unseen).
 */
import { isNemesisOp, type NemesisOp, type Op } from "../history/op.js";
import type { Fault, Schedule } from "../schedule/schedule.js";

function nemesisValue(op: NemesisOp): Record<string, unknown> {
  const v = (op as { value?: unknown }).value;
  return typeof v === "object" && v !== null ? (v as Record<string, unknown>) : {};
}

/** A partition whose recorded groups hold no client↔non-client pair cut nothing that is proxied. */
function partitionCutSomething(v: Record<string, unknown>): boolean {
  if (v.unsupported === undefined) return true;
  if (Array.isArray(v.isolated) && v.isolated.length > 0) return true;
  const a = Array.isArray(v.a) ? (v.a as string[]) : [];
  const b = Array.isArray(v.b) ? (v.b as string[]) : [];
  const isClient = (n: string) => n.startsWith("client:");
  return a.some((x) => b.some((y) => isClient(x) !== isClient(y)));
}

/** Whether a recorded nemesis start is the start of `f` (and `f` had an effect); undefined: not its op. */
function startOf(f: Fault, op: NemesisOp): boolean | undefined {
  const v = nemesisValue(op);
  const noEffect = v.unsupported !== undefined || v.ignored !== undefined;
  switch (f.kind) {
    case "pause":
      return op.f === "pause" && v.ref === f.node && v.durationMs === f.durationMs ? true : undefined;
    case "pause-at":
      return op.f === "pause" &&
        op.node === `client:${f.client}` &&
        v.checkpoint === f.checkpoint &&
        v.occurrence === f.occurrence
        ? true
        : undefined;
    case "crash":
      return op.f === "crash" && v.ref === f.node ? true : undefined;
    case "clock-jump":
    case "clock-drift":
      return op.f === f.kind && v.ref === f.node ? !noEffect : undefined;
    case "delay":
      return op.f === "delay" && v.extraMs === f.extraMs && v.durationMs === f.durationMs
        ? !noEffect
        : undefined;
    case "partition":
      return op.f === "partition" && v.durationMs === f.durationMs && v.oneWay === f.oneWay
        ? partitionCutSomething(v)
        : undefined;
    default:
      return undefined;
  }
}

const KNOWN = new Set(["pause", "pause-at", "crash", "clock-jump", "clock-drift", "delay", "partition"]);

/** For each fault of `schedule`, whether the run's history `ops` shows it took effect. */
export function firedFaults(schedule: Schedule, ops: readonly Op[]): boolean[] {
  const starts = ops.filter(isNemesisOp);
  const claimed = new Set<number>();
  // Timed faults claim starts in the order they were due; checkpoint pauses after them.
  const order = schedule.faults
    .map((f, i) => ({ f, i, due: "at" in f ? f.at : Number.POSITIVE_INFINITY }))
    .sort((x, y) => x.due - y.due || x.i - y.i);
  const fired = schedule.faults.map((f) => !KNOWN.has(f.kind));
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
