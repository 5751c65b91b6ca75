/**
 * The standard schedule of bench:sim (and of the history pin, test/sim/history-pin.test.ts):
 * exactly 5 clients × 20 cycles and 10 faults over 30 s.
 */
import fc from "fast-check";
import { defaultFaultBounds, defaultWorkloadBounds, type FaultCategory } from "../src/generators/bounds.js";
import { faultArb } from "../src/generators/faults/index.js";
import { fitFaultsToClients } from "../src/generators/fit.js";
import { cycleArb } from "../src/generators/workload.js";
import type { Schedule } from "../src/schedule/schedule.js";
import type { Target } from "../src/targets/target.js";

export function standardScheduleArb(t: Target, categories: readonly FaultCategory[]): fc.Arbitrary<Schedule> {
  const options = { ...t.defaults, horizonMs: 30_000 };
  const w = defaultWorkloadBounds(options);
  const f = defaultFaultBounds(options, categories, {
    leader: t.hasLeader,
    maxClients: 5,
    maxCycles: 20,
    horizonMs: 30_000,
  });
  return fc
    .record({
      seed: fc.integer({ min: 0, max: 0xffffffff }),
      clients: fc.array(fc.array(cycleArb(w), { minLength: 20, maxLength: 20 }), {
        minLength: 5,
        maxLength: 5,
      }),
      faults: fc.array(faultArb(f), { minLength: 10, maxLength: 10 }),
    })
    .map(({ seed, clients, faults }) => ({
      version: 1 as const,
      target: t.name,
      resource: t.resources[0],
      seed,
      options,
      clients: clients.map((cycles, id) => ({ id, cycles })),
      faults: fitFaultsToClients(faults, 5),
    }));
}
