/**
 * Makes a client's clock (clock.ts) the clock of its whole process, as libfaketime does for a
 * C program, so that the schedule's client clock faults reach what runs in it: a lock library
 * reads `Date.now()` (redlock's validity check, redis-semaphore's timeouts, etcd3's deadlines),
 * not lockcheck's `env.now()`, and the adapters' call deadlines are timers, which run on the
 * client's monotonic clock in the simulator too.
 *
 * - `Date.now()`, `new Date()` and `Date()` read the client's wall clock: a clock-jump steps it,
 *   a clock-drift changes its rate. `new Date(x)`, `Date.parse` and `Date.UTC` are untouched.
 * - `performance.now()` reads its monotonic clock: drift changes its rate, jumps do not.
 * - `setTimeout` and `setInterval` (the globals and node:timers') wait by the monotonic clock:
 *   under a drift of rate r a 1,000 ms timer fires after 1,000 / (1 + r) real ms, and a drift
 *   that starts while it waits moves its end (drifting-timers.ts).
 *
 * `process.hrtime` is left alone: it is the history's time base (the recorder stamps events
 * with it), shared with the parent. Without a clock fault every reading equals the machine's.
 */
import { syncBuiltinESMExports } from "node:module";
import timers from "node:timers";
import type { ClientClock } from "./clock.js";
import { driftingTimers } from "./drifting-timers.js";

/** Installs `clock` as the process's clock; returns the function that puts the originals back. */
export function installProcessClock(clock: ClientClock): () => void {
  const RealDate = globalThis.Date;
  const real = {
    Date: RealDate,
    perfNow: Object.getOwnPropertyDescriptor(performance, "now"),
    timers: {
      setTimeout: globalThis.setTimeout,
      setInterval: globalThis.setInterval as unknown as typeof setTimeout,
      clearTimeout: globalThis.clearTimeout,
      clearInterval: globalThis.clearInterval as unknown as typeof clearTimeout,
    },
    moduleTimers: {
      setTimeout: timers.setTimeout,
      setInterval: timers.setInterval,
      clearTimeout: timers.clearTimeout,
      clearInterval: timers.clearInterval,
    },
  };
  const now = (): number => clock.now();
  const ClientDate = new Proxy(RealDate, {
    construct: (target, args, newTarget) =>
      Reflect.construct(target, args.length === 0 ? [now()] : args, newTarget),
    apply: () => new RealDate(now()).toString(),
    get: (target, prop, receiver) => (prop === "now" ? now : Reflect.get(target, prop, receiver)),
  });
  const drifting = driftingTimers(clock, real.timers);
  let installed = true;
  clock.onDrift(() => {
    if (installed) drifting.retime();
  });
  const setTimers = (t: typeof real.moduleTimers): void => {
    for (const target of [globalThis, timers] as Record<string, unknown>[]) Object.assign(target, t);
    syncBuiltinESMExports();
  };

  globalThis.Date = ClientDate;
  Object.defineProperty(performance, "now", {
    value: () => clock.mono(),
    configurable: true,
    writable: true,
  });
  setTimers({
    setTimeout: drifting.setTimeout,
    setInterval: drifting.setInterval as unknown as typeof setInterval,
    clearTimeout: drifting.clearTimeout,
    clearInterval: drifting.clearInterval as unknown as typeof clearInterval,
  });

  return () => {
    installed = false;
    globalThis.Date = real.Date;
    if (real.perfNow === undefined) delete (performance as { now?: unknown }).now;
    else Object.defineProperty(performance, "now", real.perfNow);
    setTimers(real.moduleTimers);
  };
}
