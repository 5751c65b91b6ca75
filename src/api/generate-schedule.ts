/**
 * Generating the one schedule `run` runs when none is given, in one place: a seed, fault
 * categories and a resource mode in, a schedule out, with the generators `fuzz` uses — the
 * simulator's search generator, or, for a run of a set length on real servers, the real hunt's
 * (clients keep cycling and faults keep coming for the whole duration: src/generators/hunt.ts).
 */
import type { FaultCategory } from "../generators/bounds.js";
import { firstOfSeed } from "../generators/seed-sequence.js";
import { fuzzScheduleArb } from "../runner/fuzz.js";
import { realHuntArb, realRunSchedule } from "../runner/fuzz-real.js";
import type { ResourceMode, Schedule } from "../schedule/schedule.js";
import type { Target } from "../targets/target.js";

export interface GenerateOptions {
  seed: number;
  faults: readonly FaultCategory[];
  resource?: ResourceMode;
  /** A run of this length on real servers, with at most `clients` clients. */
  real?: { durationMs: number; clients: number };
}

export function generateSchedule(target: Target, o: GenerateOptions): Schedule {
  if (o.real !== undefined) {
    const arb = realHuntArb(target, o.faults, o.real.durationMs, o.real.clients, o.resource);
    return realRunSchedule(arb, o.seed, 0);
  }
  const arb = fuzzScheduleArb({
    target,
    seed: o.seed,
    faults: o.faults,
    ...(o.resource === undefined ? {} : { resource: o.resource }),
  });
  const generated = firstOfSeed(arb, o.seed);
  if (generated === undefined) throw new Error("run: the generator produced no schedule");
  return generated;
}
