/**
 * Workload generators: clients, their lock cycles, and each cycle's think time, hold time and
 * number of writes. Shrinks toward fewer clients, fewer cycles, shorter times, fewer writes.
 */
import fc from "fast-check";
import type { ClientPlan, Cycle } from "../schedule/schedule.js";
import type { WorkloadBounds } from "./bounds.js";

export function cycleArb(b: WorkloadBounds): fc.Arbitrary<Cycle> {
  const cycle = fc.record({
    thinkMs: fc.integer({ min: 0, max: b.maxThinkMs }),
    holdMs: fc.integer({ min: 0, max: b.maxHoldMs }),
    writes: fc.integer({ min: b.minWrites, max: b.maxWrites }),
  });
  const gap = b.maxWriteGapMs;
  if (gap === undefined) return cycle;
  return cycle.map((c) => ({
    ...c,
    writes: Math.min(b.maxWrites, Math.max(c.writes, Math.ceil(c.holdMs / gap))),
  }));
}

export function cyclesArb(b: WorkloadBounds): fc.Arbitrary<Cycle[]> {
  return fc.array(cycleArb(b), { minLength: 1, maxLength: b.maxCycles });
}

/** Client plans numbered 0 … n-1. */
export function clientsArb(b: WorkloadBounds): fc.Arbitrary<ClientPlan[]> {
  return fc
    .array(cyclesArb(b), { minLength: b.minClients, maxLength: b.maxClients })
    .map((all) => all.map((cycles, id) => ({ id, cycles })));
}
