/**
 * `scheduleArb`: whole schedules — a seed, client workloads and faults — for one target.
 * Shrinking heads toward fewer clients, fewer cycles, fewer and shorter faults and smaller
 * clock offsets (fast-check shrinks each part; the parts are combined with `map`, which
 * keeps shrinking intact).
 *
 * Example, in a user's own property:
 *
 *     fc.assert(fc.asyncProperty(scheduleArb({ target: "sim:lease-token", resource: "fenced",
 *       options, faults: { categories: ["pause"] } }), async (s) => …));
 */
import fc from "fast-check";
import type { ResourceMode, Schedule, ScheduleOptions } from "../schedule/schedule.js";
import {
  checkBounds,
  defaultFaultBounds,
  defaultWorkloadBounds,
  type FaultBounds,
  type FaultCategory,
  renewingBounds,
  type WorkloadBounds,
} from "./bounds.js";
import { faultsArb } from "./faults/index.js";
import { fitFaultsToClients } from "./fit.js";
import { clientsArb } from "./workload.js";

export interface ScheduleArbOptions {
  /** e.g. "sim:redlock". */
  target: string;
  resource: ResourceMode;
  /** World options (servers, TTL, latency, timeouts): usually the target's defaults. */
  options: ScheduleOptions;
  workload?: Partial<WorkloadBounds>;
  /** Which fault categories, and bounds on them; no categories: no faults. */
  faults?: Partial<FaultBounds> & { categories: readonly FaultCategory[] };
  /**
   * The lock renews its lease while held (a keep-alive, session heartbeats): holds last up to
   * 3 × TTL with a write at least every quarter TTL, and partitions may cut one client off
   * from every lock server for one to three TTLs, so that renewals fail while the holder goes
   * on writing. (Holds of 0.8 × TTL end before such a lease could expire.) Default false.
   */
  renews?: boolean;
}

/** The 32-bit seed for everything random inside a run. */
export const seedArb: fc.Arbitrary<number> = fc.integer({ min: 0, max: 0xffffffff });

export function scheduleArb(opts: ScheduleArbOptions): fc.Arbitrary<Schedule> {
  const ttl = opts.options.ttlMs;
  const renewing =
    opts.renews === true ? renewingBounds(ttl, { min: ttl, max: 3 * ttl }) : { workload: {}, faults: {} };
  const workload = defaultWorkloadBounds(opts.options, { ...renewing.workload, ...opts.workload });
  const { categories = [], ...faultOverrides } = opts.faults ?? { categories: [] };
  const faults = defaultFaultBounds(opts.options, categories, {
    ...renewing.faults,
    maxClients: workload.maxClients,
    maxCycles: workload.maxCycles,
    // Faults land while clients are busy: within the longest a client's plan can take.
    horizonMs: Math.min(
      opts.options.horizonMs,
      workload.maxCycles * (workload.maxThinkMs + workload.maxHoldMs),
    ),
    ...faultOverrides,
  });
  checkBounds("scheduleArb", workload, faults);
  return fc.tuple(seedArb, clientsArb(workload), faultsArb(faults)).map(([seed, clients, fs]) => ({
    version: 1 as const,
    target: opts.target,
    resource: opts.resource,
    seed,
    options: opts.options,
    clients,
    faults: fitFaultsToClients(fs, clients.length),
  }));
}
