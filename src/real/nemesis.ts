/**
 * The real world's nemesis: starts each timed fault of the schedule at its time (ms after the
 * run's start), serves clients' `pause-at` and `pause-in-call` requests and their requests to
 * cut or delay their links (`partition-at`, `delay-at`), records every fault start and end as a
 * `nemesis` op, and knows which faults are active (for the progress line). One fault kind
 * per file under faults/.
 */
import type { NemesisF } from "../history/op.js";
import { faultEffectMs } from "../schedule/faults/index.js";
import {
  isTimedFault,
  type PartitionMode,
  type Schedule,
  startsAtHit,
  type TimedFault,
} from "../schedule/schedule.js";
import type { CheckpointFaultPoint } from "./client/protocol.js";
import type { ClientFleet, PauseRequest } from "./clients.js";
import { startClockFault } from "./faults/clock.js";
import { type FaultContext, resolveNode } from "./faults/context.js";
import { startCrash } from "./faults/crash.js";
import { startDelay } from "./faults/delay.js";
import { startDelaysAt } from "./faults/delay-at.js";
import { startPartition } from "./faults/partition.js";
import { startPartitionsAt } from "./faults/partition-at.js";
import { startPause } from "./faults/pause.js";
import { handlePauseRequest } from "./faults/pause-at.js";
import { appendNemesisEvent } from "./history.js";
import { noSoonerThan } from "./no-sooner-than.js";
import type { RealWorld } from "./world.js";

export interface Nemesis {
  /**
   * Applies the faults due at time 0 (so that they are in place before any client acts: a
   * partition "from the start" must cut the very first requests) and starts the timers of
   * the others. Call once, right before the clients are released.
   */
  start(clients: ClientFleet): Promise<void>;
  onPauseRequest(req: PauseRequest): void;
  /**
   * Client `clientId` reached a point where its `partition-at` or `delay-at` faults start: cut
   * it off or delay its links, then tell it to go on.
   */
  onLinksRequest(clientId: number, point: CheckpointFaultPoint): void;
  /** Labels of the faults in effect now. */
  active(): string[];
  /**
   * Faults begun so far: timed ones whose time came, and pauses at a client's progress that
   * it asked for. Clock jumps and drifts count here, though they are never "in effect".
   */
  begun(): number;
  /** Faults that failed to apply (lockcheck trouble, e.g. a restart that did not come up). */
  errors(): string[];
  /** Cancels pending fault starts and ends (teardown then kills and closes everything). */
  stop(): void;
}

export interface NemesisOptions {
  schedule: Schedule;
  world: RealWorld;
  eventsDir: string;
  t0: bigint;
  partitionMode: PartitionMode;
}

export function createNemesis(opts: NemesisOptions): Nemesis {
  const timers = new Set<NodeJS.Timeout>();
  const active = new Map<number, { label: string; until: number }>();
  const errors: string[] = [];
  let nextActive = 0;
  let begun = 0;
  let stopped = false;
  let ctx: FaultContext | null = null;

  const nowNs = (): number => Number(process.hrtime.bigint() - opts.t0);
  const nowMs = (): number => nowNs() / 1e6;

  /** Runs `fn` no sooner than `ms` from now on the run's clock, unless the nemesis stopped. */
  const schedule = (ms: number, fn: () => void | Promise<void>): void => {
    const run = (): void => {
      if (stopped) return;
      Promise.resolve()
        .then(fn)
        .catch((e: unknown) => errors.push(String(e)));
    };
    noSoonerThan(nowNs() + Math.max(0, ms) * 1e6, nowNs, () => setImmediate(run), timers);
  };

  const track = (label: string | null, durationMs: number): void => {
    if (label === null || durationMs <= 0) return;
    const id = nextActive++;
    active.set(id, { label, until: nowMs() + durationMs });
  };

  const startFault = async (c: FaultContext, f: TimedFault): Promise<string | null> => {
    switch (f.kind) {
      case "pause":
        return startPause(c, f);
      case "crash":
        return startCrash(c, f);
      case "partition":
        return startPartition(c, f);
      case "clock-jump":
      case "clock-drift":
        return startClockFault(c, f);
      case "delay":
        return startDelay(c, f);
    }
  };

  return {
    async start(clients) {
      const c: FaultContext = {
        world: opts.world,
        clients,
        partitionMode: opts.partitionMode,
        record(f: NemesisF, node: string | undefined, value: unknown, time?: number) {
          const ev = { time: time ?? nowNs(), f, value, ...(node === undefined ? {} : { node }) };
          appendNemesisEvent(opts.eventsDir, ev);
        },
        nowNs,
        after: schedule,
        // Resolving `server:leader` may wait for an election: a run over by then gets no fault.
        resolve: async (ref) => {
          const node = await resolveNode(opts.world, clients, ref);
          return stopped ? undefined : node;
        },
      };
      ctx = c;
      const startNow: Promise<void>[] = [];
      for (const fault of opts.schedule.faults) {
        if (!isTimedFault(fault)) continue;
        const begin = async (): Promise<void> => {
          begun++;
          track(await startFault(c, fault), faultEffectMs(fault));
        };
        if (fault.at === 0) startNow.push(begin().catch((e: unknown) => void errors.push(String(e))));
        else schedule(fault.at - nowMs(), begin);
      }
      await Promise.all(startNow);
    },
    onPauseRequest(req) {
      const c = ctx;
      if (c === null || stopped) return;
      begun++;
      void handlePauseRequest(c, req).then(
        (label) => track(label, req.durationMs),
        (e: unknown) => errors.push(String(e)),
      );
    },
    onLinksRequest(clientId, point) {
      const c = ctx;
      const goOn = (): void => c?.clients.send(clientId, { type: "links-changed", ...point });
      if (c === null || stopped) {
        goOn();
        return;
      }
      const here = opts.schedule.faults.filter(
        (f) => startsAtHit(f, clientId, point.checkpoint, point.occurrence) && f.afterMs === point.afterMs,
      );
      const cuts = here.filter((f) => f.kind === "partition-at");
      const delays = here.filter((f) => f.kind === "delay-at");
      begun += cuts.length + delays.length;
      void Promise.all([startPartitionsAt(c, cuts), startDelaysAt(c, delays)])
        .then(
          (started) => {
            for (const s of started.flat()) track(s.label, s.durationMs);
          },
          (e: unknown) => void errors.push(String(e)),
        )
        .finally(goOn);
    },
    active() {
      const now = nowMs();
      for (const [id, a] of active) if (a.until <= now) active.delete(id);
      return [...active.values()].map((a) => a.label);
    },
    begun: () => begun,
    errors: () => [...errors],
    stop() {
      stopped = true;
      for (const t of timers) clearTimeout(t);
      timers.clear();
      active.clear();
    },
  };
}
