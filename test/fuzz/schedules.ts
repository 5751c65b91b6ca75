/** Hand-written schedules for tests: a target's default options plus the given clients and faults. */
import type {
  ClientPlan,
  Fault,
  ResourceMode,
  Schedule,
  ScheduleOptions,
} from "../../src/schedule/schedule.js";
import { findTarget } from "../../src/targets/index.js";
import type { Target } from "../../src/targets/target.js";

export function target(name: string): Target {
  const t = findTarget(name);
  if (!t.ok) throw new Error(t.error.message);
  return t.value;
}

export interface ScheduleSpec {
  resource: ResourceMode;
  clients: Array<ClientPlan["cycles"]>;
  faults?: Fault[];
  seed?: number;
  options?: Partial<ScheduleOptions>;
}

export function scheduleFor(name: string, spec: ScheduleSpec): Schedule {
  return {
    version: 1,
    target: name,
    resource: spec.resource,
    seed: spec.seed ?? 1,
    options: { ...target(name).defaults, ...spec.options },
    clients: spec.clients.map((cycles, id) => ({ id, cycles })),
    faults: spec.faults ?? [],
  };
}

/** Client 0 paused `afterMs` into its `occurrence`-th acquire, for `durationMs`. */
export function pauseInAcquire(afterMs: number, durationMs: number, occurrence = 0): Fault {
  return { kind: "pause-in-call", client: 0, call: "acquire", occurrence, afterMs, durationMs };
}

/**
 * sim:lease: client 0 is paused past its lease while holding; client 1 takes the lock; clients
 * 2 and 3 idle by. Shrinks to the first two.
 */
export function pausedHolderAndIdlers(): Schedule {
  return scheduleFor("sim:lease", {
    resource: "unfenced",
    clients: [
      [{ thinkMs: 0, holdMs: 600, writes: 2 }],
      [{ thinkMs: 1500, holdMs: 100, writes: 1 }],
      [{ thinkMs: 4000, holdMs: 10, writes: 0 }],
      [{ thinkMs: 4500, holdMs: 10, writes: 0 }],
    ],
    faults: [{ kind: "pause", node: "client:0", at: 150, durationMs: 2500 }],
  });
}
