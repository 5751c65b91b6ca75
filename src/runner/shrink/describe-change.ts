/**
 * How a shrink candidate differs from the schedule it was made from, in a few words for the
 * shrink log (report/shrink-log.ts). The candidates do not say what made them: the difference
 * is read off the two schedules, biggest changes first.
 */

import type { TrialSize } from "../../report/shrink-log.js";
import { faultNodes } from "../../schedule/faults/index.js";
import type { Fault, Schedule } from "../../schedule/schedule.js";
import { count } from "../../util/count.js";
import { scheduleSize } from "../schedule-size.js";

const secs = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

/** "pause client:1 at 2064 ms", "clock-jump server:3", "pause-at client 0 acquire-sent #2". */
export function faultBrief(f: Fault): string {
  const where = faultNodes(f).join(",");
  if ("at" in f) return `${f.kind} ${where} at ${Math.round(f.at)} ms`;
  if ("checkpoint" in f) return `${f.kind} client:${f.client} ${f.checkpoint} #${f.occurrence}`;
  return `${f.kind} ${where}`;
}

/** The faults of `a` that `b` lacks, counting duplicates. */
function missing(a: readonly Fault[], b: readonly Fault[]): Fault[] {
  const left = new Map<string, number>();
  for (const f of b) {
    const k = JSON.stringify(f);
    left.set(k, (left.get(k) ?? 0) + 1);
  }
  const out: Fault[] = [];
  for (const f of a) {
    const k = JSON.stringify(f);
    const n = left.get(k) ?? 0;
    if (n > 0) left.set(k, n - 1);
    else out.push(f);
  }
  return out;
}

/** At most two faults named, then how many more. */
function listed(faults: readonly Fault[]): string {
  const named = faults.slice(0, 2).map(faultBrief).join("; ");
  return faults.length > 2 ? `${named} and ${faults.length - 2} more` : named;
}

export function describeChange(from: Schedule, to: Schedule): string {
  const a = scheduleSize(from);
  const b = scheduleSize(to);
  const parts: string[] = [];
  if (b.clients !== a.clients) parts.push(`${a.clients} → ${b.clients} clients`);
  if (b.repeating < a.repeating) parts.push(`${a.repeating - b.repeating} fewer repeating`);
  if (b.cycles !== a.cycles) parts.push(`${a.cycles} → ${b.cycles} cycles`);
  if (b.writes !== a.writes) parts.push(`${a.writes} → ${b.writes} writes`);
  if (to.options.horizonMs !== from.options.horizonMs)
    parts.push(`horizon ${secs(from.options.horizonMs)} → ${secs(to.options.horizonMs)}`);
  const gone = missing(from.faults, to.faults);
  const added = missing(to.faults, from.faults);
  // A fault changed in place shows as one gone and one added: name it once, as changed.
  const changed = Math.min(gone.length, added.length);
  const dropped = gone.length - changed;
  if (dropped > 0 && changed === 0) parts.push(`without ${listed(gone)}`);
  else if (dropped > 0) parts.push(`${a.faults} → ${b.faults} faults`);
  if (changed > 0 && dropped === 0) parts.push(`changed ${listed(added)}`);
  else if (changed > 0) parts.push(`${count(changed, "fault")} changed`);
  if (parts.length > 0) return parts.join("; ");
  if (b.workloadMs !== a.workloadMs)
    return `think and hold times ${a.workloadMs} → ${b.workloadMs} ms in all`;
  if (b.clientIds !== a.clientIds) return "clients renumbered";
  return JSON.stringify(from) === JSON.stringify(to) ? "the same schedule" : "timings changed";
}

/** The counts the shrink log shows of a schedule. */
export function trialSize(s: Schedule): TrialSize {
  const z = scheduleSize(s);
  return { clients: z.clients, cycles: z.cycles, repeating: z.repeating, faults: z.faults };
}
