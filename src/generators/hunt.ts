/**
 * `huntScheduleArb`: schedules for a run that hunts for a bug over a whole duration, Jepsen
 * style: every client keeps cycling (its few cycles `repeat` until the horizon) and the
 * nemesis keeps injecting faults throughout — about one every `faultEveryMs`, at times spread
 * over the whole duration, with checkpoint and in-call occurrences reaching as far into the
 * run as clients get. It stays a plain, replayable schedule: every fault is listed.
 *
 * Pauses include pauses inside calls (`in-call`), which `scheduleArb` leaves out by default,
 * checkpoint pauses aim where a write can follow (not before a release), and delays and
 * partitions reach only links that carry traffic on real servers (`links: "real"`): never
 * between two clients, nor between Redis servers. A delay lasts up to the client's call
 * timeout plus 2 × TTL: a delayed packet must outlast its write's timeout, then the next
 * holder's acquisition and its hold (up to 0.8 × TTL) to its first write. With delays of at
 * most 2 × TTL (the simulator's bound), a library whose calls wait 2 TTLs (etcd3-lock.mjs: 1 s
 * TTL, 2 s timeout) never had a write time out on a delay.
 *
 * Tuned to find a stale write soon (measured on real servers, bench/hunt.ts): every hold
 * writes at least once (a paused holder has a write to make when it wakes); a client pause
 * lasts from one `leaseMs` (how long a frozen holder can keep the lock) up to the larger of
 * 3 × TTL and 2 × leaseMs — shorter pauses of a holder seldom break a lease lock; and fault
 * times, durations and occurrences are drawn uniformly (fast-check's bias toward small and
 * extreme values would pile faults up at the start and end of the run and make most pauses
 * a few ms long); clock faults lean toward harm (bounds.ts `clockAim`): a server's clock as
 * often as a client's, servers' clocks jumping forward and running fast, clients' jumping back
 * and running slow, three times in four, and no drift slower than 50%; where servers ignore
 * clocks (etcd) only clients' change.
 *
 * A lock that `renews` its lease while held is hunted differently: holds last up to 3 ×
 * `leaseMs` instead of 0.8 × TTL (a holder that renews may hold as long as it likes), with a
 * write at least every quarter lease spread over the whole hold, the last at its end;
 * and half the partitions cut one client off from every lock server for as long as a client
 * pause lasts — at least one lease — so renewals fail while the holder still writes. Without
 * `renews` these schedules are what they were before it existed.
 */
import fc from "fast-check";
import type { Checkpoint, Schedule } from "../schedule/schedule.js";
import {
  checkBounds,
  defaultFaultBounds,
  defaultWorkloadBounds,
  PAUSE_KINDS,
  renewingBounds,
} from "./bounds.js";
import { faultArb } from "./faults/index.js";
import { fitFaultsToClients } from "./fit.js";
import { type ScheduleArbOptions, seedArb } from "./schedule.js";
import { clientsArb } from "./workload.js";

const HUNT_CHECKPOINTS: readonly Checkpoint[] = ["acquire-sent", "acquired", "before-write"];

/**
 * Slowest drift of a hunt's clocks. A client clock 50% slow doubles a hold: one of 0.8 × TTL (the
 * longest a hunt draws) lasts 1.6 TTLs, well past the lease, as a client pause lasts at least
 * one lease; a server clock 50% fast expires a key at two thirds of its TTL, under such a hold.
 * With 20% the holds barely outlasted their leases: fewer runs failed (33 of 40 against 35 of
 * 40, bench/hunt.ts) and their failures seldom came back when the run was shrunk.
 */
const HUNT_MIN_DRIFT_RATE = 0.5;

export interface HuntArbOptions extends ScheduleArbOptions {
  /** Mean time between two faults (default: the TTL, at least 500 ms). */
  faultEveryMs?: number;
  /**
   * How long a holder frozen just after its lease was granted or renewed keeps the lock
   * (default: the TTL). Longer where the server rounds or checks expiry late (etcd: whole
   * seconds, expired leases revoked every 500 ms).
   */
  leaseMs?: number;
  /** The lock renews its lease in the background while held (see above). Default false. */
  renews?: boolean;
  /**
   * Whether clock faults can change the lock servers' clocks (default true); false: only
   * clients' (etcd members ignore clock faults).
   */
  serverClocks?: boolean;
}

export function huntScheduleArb(opts: HuntArbOptions): fc.Arbitrary<Schedule> {
  const { options } = opts;
  const leaseMs = opts.leaseMs ?? options.ttlMs;
  const maxPauseMs = opts.faults?.maxPauseMs ?? Math.max(3 * options.ttlMs, 2 * leaseMs);
  const minClientPauseMs = Math.max(1, Math.min(leaseMs, maxPauseMs));
  // A renewing holder is cut off as long as a client pause lasts: at least one lease.
  const renewing =
    opts.renews === true
      ? renewingBounds(leaseMs, { min: minClientPauseMs, max: maxPauseMs })
      : { workload: {}, faults: {} };
  const workload = defaultWorkloadBounds(options, { minWrites: 1, ...renewing.workload, ...opts.workload });
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
    // Faults on links that carry no traffic on real servers would do nothing there.
    links: "real",
    maxPauseMs,
    minClientPauseMs,
    maxDelayMs: options.callTimeoutMs + 2 * options.ttlMs,
    clockAim: { minDriftRate: HUNT_MIN_DRIFT_RATE, serverClocks: opts.serverClocks !== false },
    ...renewing.faults,
    ...faultOverrides,
  });
  checkBounds("huntScheduleArb", workload, faults);
  const every = opts.faultEveryMs ?? Math.max(500, options.ttlMs);
  const count = categories.length === 0 ? 0 : Math.max(1, Math.round(options.horizonMs / every));
  const faultsArb =
    count === 0
      ? fc.constant([])
      : fc.array(fc.noBias(faultArb(faults)), { minLength: count, maxLength: count });
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
