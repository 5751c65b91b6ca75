/**
 * `huntScheduleArb`: schedules for a run that hunts for a bug over a whole duration, Jepsen
 * style: every client keeps cycling (its few cycles `repeat` until the horizon) and the
 * nemesis keeps injecting faults throughout — about one every `faultEveryMs`, at times spread
 * over the whole duration, with checkpoint and in-call occurrences reaching as far into the
 * run as clients get. It stays a plain, replayable schedule: every fault is listed.
 *
 * Pauses include pauses inside calls (`in-call`), which `scheduleArb` leaves out by default, and
 * checkpoint pauses aim where a write can follow (not before a release).
 */
import fc from "fast-check";
import type { Checkpoint, Schedule } from "../schedule/schedule.js";
import { checkBounds, defaultFaultBounds, defaultWorkloadBounds, PAUSE_KINDS } from "./bounds.js";
import { faultArb } from "./faults/index.js";
import { fitFaultsToClients } from "./fit.js";
import { type ScheduleArbOptions, seedArb } from "./schedule.js";
import { clientsArb } from "./workload.js";

const HUNT_CHECKPOINTS: readonly Checkpoint[] = ["acquire-sent", "acquired", "before-write"];

export interface HuntArbOptions extends ScheduleArbOptions {
  /** Mean time between two faults (default: the TTL, at least 500 ms). */
  faultEveryMs?: number;
}

export function huntScheduleArb(opts: HuntArbOptions): fc.Arbitrary<Schedule> {
  const { options } = opts;
  const workload = defaultWorkloadBounds(options, opts.workload);
  const { categories = [], ...faultOverrides } = opts.faults ?? { categories: [] };
  // Checkpoint and in-call occurrences (0 … 2 × maxCycles - 1) up to one per TTL of the run:
  // about as many cycles as a contending client gets through (a cycle takes half a TTL, and
  // there are others to wait for), so most of them fire.
  const cyclesInRun = Math.max(1, Math.ceil(options.horizonMs / Math.max(1, options.ttlMs)));
  const faults = defaultFaultBounds(options, categories, {
    maxClients: workload.maxClients,
    maxCycles: Math.ceil(cyclesInRun / 2),
    horizonMs: options.horizonMs,
    pauses: PAUSE_KINDS,
    // Where a pause leads to a write after the lease is gone (before a release it seldom does).
    checkpoints: HUNT_CHECKPOINTS,
    ...faultOverrides,
  });
  checkBounds("huntScheduleArb", workload, faults);
  const every = opts.faultEveryMs ?? Math.max(500, options.ttlMs);
  const count = categories.length === 0 ? 0 : Math.max(1, Math.round(options.horizonMs / every));
  const faultsArb =
    count === 0 ? fc.constant([]) : fc.array(faultArb(faults), { minLength: count, maxLength: count });
  return fc.tuple(seedArb, clientsArb(workload), faultsArb).map(([seed, plans, fs]) => {
    const clients = plans.map((c) => ({ ...c, repeat: true as const }));
    return {
      version: 1 as const,
      target: opts.target,
      resource: opts.resource,
      seed,
      options,
      clients,
      faults: fitFaultsToClients(fs, clients.length),
    };
  });
}
