/**
 * `setTimeout` and `setInterval` that wait by a client's monotonic clock (clock.ts), for
 * process-clock.ts to put in place of the globals: a timer of `ms` fires when the client's
 * clock has counted `ms`, and a drift that starts while it waits moves its end (and an
 * interval's later periods), as a simulated client's timer's (src/sim/node.ts).
 *
 * Moving a pending timer re-times Node's own Timeout object, so the handle the caller holds
 * stays the one that fires and that clearTimeout, ref/unref and refresh act on. That reaches
 * two of its private fields (lib/internal/timers.js): `_idleTimeout`, the delay `refresh()`
 * re-arms with, and `_repeat`, an interval's period. A Timeout without them is left as it was
 * set; test/real/process-clock.test.ts fails if Node changes them.
 */
import type { ClientClock } from "./clock.js";

type SetTimer = typeof globalThis.setTimeout;
type ClearTimer = typeof globalThis.clearTimeout;

/** The part of Node's Timeout that re-timing uses. */
interface NodeTimeout {
  _idleTimeout: number;
  _repeat: number | null;
  _destroyed?: boolean;
  refresh(): unknown;
}

/** A pending timer: when it is due by the client's clock, and its period if it repeats. */
interface Pending {
  deadlineMono: number;
  readonly periodMs: number | null;
}

export interface DriftingTimers {
  setTimeout: SetTimer;
  setInterval: SetTimer;
  clearTimeout: ClearTimer;
  clearInterval: ClearTimer;
  /** Moves every pending timer's end to where the clock's new rate puts it. */
  retime(): void;
}

/**
 * The longest delay Node's timers take. A longer one fires after 1 ms (with a
 * TimeoutOverflowWarning): a library's "never" timer of 2^31 − 1 ms, stretched by a clock
 * running slow, would fire at once. Held to this it waits 24.8 days, longer than any run.
 */
export const MAX_TIMER_MS = 2 ** 31 - 1;

const retimable = (t: unknown): t is NodeTimeout =>
  typeof t === "object" &&
  t !== null &&
  typeof (t as NodeTimeout)._idleTimeout === "number" &&
  "_repeat" in t &&
  typeof (t as NodeTimeout).refresh === "function";

export function driftingTimers(
  clock: ClientClock,
  real: { setTimeout: SetTimer; setInterval: SetTimer; clearTimeout: ClearTimer; clearInterval: ClearTimer },
): DriftingTimers {
  const pending = new Map<NodeTimeout, Pending>();
  const realMs = (monoMs: number): number => Math.min(MAX_TIMER_MS, Math.max(1, clock.delay(monoMs)));

  const timer = (set: SetTimer, repeats: boolean): SetTimer => {
    const wrapped = (fn: unknown, ms?: number, ...args: unknown[]) => {
      if (typeof fn !== "function" || typeof ms !== "number" || !(ms > 0))
        return (set as (...a: unknown[]) => unknown)(fn, ms, ...args);
      const due: Pending = { deadlineMono: clock.mono() + ms, periodMs: repeats ? ms : null };
      const t: unknown = set(
        function (this: unknown, ...a: unknown[]) {
          if (repeats) due.deadlineMono += ms;
          else if (retimable(t)) pending.delete(t);
          return (fn as (...x: unknown[]) => unknown).apply(this, a);
        },
        Math.min(MAX_TIMER_MS, clock.delay(ms)),
        ...args,
      );
      if (retimable(t)) pending.set(t, due);
      return t;
    };
    // Keeps util.promisify.custom and the like.
    return Object.assign(wrapped, set) as unknown as SetTimer;
  };
  const clear = (realClear: ClearTimer): ClearTimer =>
    ((t?: unknown) => {
      if (retimable(t)) pending.delete(t);
      return realClear(t as Parameters<ClearTimer>[0]);
    }) as ClearTimer;

  return {
    setTimeout: timer(real.setTimeout, false),
    setInterval: timer(real.setInterval, true),
    clearTimeout: clear(real.clearTimeout),
    clearInterval: clear(real.clearInterval),
    retime() {
      const mono = clock.mono();
      for (const [t, due] of pending) {
        if (t._destroyed === true) {
          pending.delete(t);
          continue;
        }
        t._idleTimeout = realMs(Math.max(0, due.deadlineMono - mono));
        if (due.periodMs !== null) t._repeat = realMs(due.periodMs);
        t.refresh();
      }
    },
  };
}
