/**
 * A timer that never fires early on a given clock. setTimeout counts from the event loop's
 * cached time and rounds, so it can fire a fraction of a millisecond before a deadline taken
 * from hrtime (a resume seen 2,999.94 ms after its 3,000 ms pause in CI): the callback then
 * re-arms for what is left. Used wherever a recorded duration must be at least what the
 * schedule says: fault starts and ends in the parent, pause-in-call in a client child.
 */
export interface TimerSet {
  add(t: NodeJS.Timeout): void;
  delete(t: NodeJS.Timeout): void;
}

/** setTimeout's largest delay; a longer one fires at once (with a warning). */
const MAX_TIMEOUT_MS = 2 ** 31 - 1;

/** Calls `fn` once `now()` (ns) has reached `dueNs`; `timers` holds the pending timer for cancelling. */
export function noSoonerThan(dueNs: number, now: () => number, fn: () => void, timers?: TimerSet): void {
  const leftMs = (dueNs - now()) / 1e6;
  if (leftMs <= 0) {
    fn();
    return;
  }
  const timer = setTimeout(
    () => {
      timers?.delete(timer);
      noSoonerThan(dueNs, now, fn, timers);
    },
    Math.min(Math.ceil(leftMs), MAX_TIMEOUT_MS),
  );
  timers?.add(timer);
}
