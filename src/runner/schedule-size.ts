/**
 * How big a schedule is, for the shrinker: it only ever moves to a candidate whose weight is
 * strictly smaller, so shrinking terminates and never grows a schedule. Counts (clients,
 * cycles, writes, faults, partition nodes) dominate; times and offsets add their magnitude
 * in milliseconds scaled down so that dropping a whole fault always beats shortening one; so
 * does the horizon (a run cut short after its violation is smaller: cut-after-violation.ts).
 * Each fault kind says what it adds (`magnitude` of src/schedule/faults/<kind>.ts).
 */
import { faultMagnitude } from "../schedule/faults/index.js";
import type { Schedule } from "../schedule/schedule.js";

export interface ScheduleSize {
  clients: number;
  cycles: number;
  writes: number;
  faults: number;
  /** Sum of fault durations, |clock offsets|, extra delays, restart delays and drift (as ‰). */
  faultMs: number;
  /** Sum of think and hold times. */
  workloadMs: number;
  /** Sum of client ids (so that closing gaps in the numbering counts as shrinking). */
  clientIds: number;
  /** Clients that repeat their cycles until the horizon (each counts like one more cycle). */
  repeating: number;
}

export function scheduleSize(s: Schedule): ScheduleSize {
  let cycles = 0;
  let writes = 0;
  let workloadMs = 0;
  for (const c of s.clients) {
    cycles += c.cycles.length;
    for (const cy of c.cycles) {
      writes += cy.writes;
      workloadMs += cy.thinkMs + cy.holdMs;
    }
  }
  let faultMs = 0;
  for (const f of s.faults) faultMs += faultMagnitude(f);
  const clientIds = s.clients.reduce((sum, c) => sum + c.id, 0);
  return {
    clients: s.clients.length,
    cycles,
    writes,
    faults: s.faults.length,
    faultMs,
    workloadMs,
    clientIds,
    repeating: s.clients.filter((c) => c.repeat === true).length,
  };
}

/** A single number ordering schedules by size (see the top of this file). */
export function scheduleWeight(s: Schedule): number {
  const z = scheduleSize(s);
  const count = z.clients * 1e4 + (z.cycles + z.repeating) * 1e3 + z.faults * 1e3 + z.writes * 10;
  return count * 1e9 + z.faultMs + z.workloadMs + z.clientIds + s.options.horizonMs;
}
