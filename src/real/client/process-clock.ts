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
 *   under a drift of rate r a 1,000 ms timer fires after 1,000 / (1 + r) real ms. The rate is
 *   read when the timer is set (an interval keeps it).
 *
 * `process.hrtime` is left alone: it is the history's time base (the recorder stamps events
 * with it), shared with the parent. Without a clock fault every reading equals the machine's.
 */
import { syncBuiltinESMExports } from "node:module";
import timers from "node:timers";
import type { ClientClock } from "./clock.js";

type TimerFn = typeof globalThis.setTimeout;

/** Installs `clock` as the process's clock; returns the function that puts the originals back. */
export function installProcessClock(clock: ClientClock): () => void {
  const RealDate = globalThis.Date;
  const real = {
    Date: RealDate,
    perfNow: Object.getOwnPropertyDescriptor(performance, "now"),
    setTimeout: globalThis.setTimeout,
    setInterval: globalThis.setInterval,
    timersSetTimeout: timers.setTimeout,
    timersSetInterval: timers.setInterval,
  };
  const now = (): number => clock.now();
  const ClientDate = new Proxy(RealDate, {
    construct: (target, args, newTarget) =>
      Reflect.construct(target, args.length === 0 ? [now()] : args, newTarget),
    apply: () => new RealDate(now()).toString(),
    get: (target, prop, receiver) => (prop === "now" ? now : Reflect.get(target, prop, receiver)),
  });
  const scaled = (set: TimerFn): TimerFn => {
    const wrapped = (fn: (...a: unknown[]) => void, ms?: number, ...args: unknown[]) =>
      set(fn, typeof ms === "number" && ms > 0 ? clock.delay(ms) : ms, ...args);
    // Keeps util.promisify.custom and the like.
    return Object.assign(wrapped, set) as unknown as TimerFn;
  };

  globalThis.Date = ClientDate;
  Object.defineProperty(performance, "now", {
    value: () => clock.mono(),
    configurable: true,
    writable: true,
  });
  globalThis.setTimeout = scaled(real.setTimeout);
  globalThis.setInterval = scaled(real.setInterval as unknown as TimerFn) as unknown as typeof setInterval;
  timers.setTimeout = globalThis.setTimeout;
  timers.setInterval = globalThis.setInterval;
  syncBuiltinESMExports();

  return () => {
    globalThis.Date = real.Date;
    if (real.perfNow === undefined) delete (performance as { now?: unknown }).now;
    else Object.defineProperty(performance, "now", real.perfNow);
    globalThis.setTimeout = real.setTimeout;
    globalThis.setInterval = real.setInterval;
    timers.setTimeout = real.timersSetTimeout;
    timers.setInterval = real.timersSetInterval;
    syncBuiltinESMExports();
  };
}
