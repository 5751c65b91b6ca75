/**
 * A simulation never yields to the event loop while it runs (src/sim/scheduler.ts), and a
 * search awaits only promises between runs, so without this a long `fuzz --workers 1` or a
 * shrink never let Node handle a signal: with a SIGINT handler installed, Ctrl-C did nothing
 * at all, and timers (a live progress bar's redraw) never ran.
 */

/** At most this long between two turns of the event loop, in ms. */
const EVERY_MS = 50;

let lastTurn = Date.now();

/**
 * To await between runs: once `EVERY_MS` has passed since the last turn it resolves on the
 * event loop's next turn (setImmediate: after signals, timers and I/O), otherwise it is
 * undefined and awaiting it costs one microtask. Shared by every caller in this thread.
 */
export function eventLoopTurn(): Promise<void> | undefined {
  const now = Date.now();
  if (now - lastTurn < EVERY_MS) return undefined;
  lastTurn = now;
  return new Promise((resolve) => setImmediate(resolve));
}
