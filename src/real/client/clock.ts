/**
 * A client process's own clocks: the machine's plus what the schedule's client clock faults did
 * to them, modelled as the simulator models a node's (src/sim/clock.ts):
 * - the wall clock (`now`) steps with a clock-jump and runs at (1 + rate) × true speed under a
 *   clock-drift;
 * - the monotonic clock (`mono`, and every wait: `sleep`, `delay`) runs at the same rate but
 *   does not step.
 * Lock algorithms read it through env.now() and wait on it through env.sleep(), as real clients
 * use their host's clock; the client process installs it as the whole process's
 * (process-clock.ts, from child-main.ts), so a library's Date.now() and timers read it too.
 */
import { MAX_TIMER_MS } from "./drifting-timers.js";

export interface ClientClock {
  /** Wall-clock ms since the epoch, as this client's clock reads. */
  now(): number;
  /** Monotonic ms (an arbitrary origin), as this client's clock reads. */
  mono(): number;
  /** How many real ms pass while this clock counts `ms` (a drifting clock makes waits shorter or longer). */
  delay(ms: number): number;
  /** Waits `ms` by this clock (a drift that starts meanwhile moves the end, as in the simulator). */
  sleep(ms: number): Promise<void>;
  jump(deltaMs: number): void;
  drift(rate: number): void;
  /**
   * Sets the monotonic clock back to `mono`, a reading taken earlier: the time since is lost to
   * both clocks, which run on from there (a pause whose clocks stopped: a suspended VM).
   */
  rewind(mono: number): void;
  /** Calls `listener` after every change of rate (a drift) or rewind, to move timers set on this clock. */
  onDrift(listener: () => void): void;
}

/** Taken when this module loads, before process-clock.ts may replace the globals. */
const realSetTimeout = globalThis.setTimeout;
const realClearTimeout = globalThis.clearTimeout;
const realDateNow = Date.now;
const realPerfNow = performance.now.bind(performance);

interface Sleeper {
  readonly deadlineMono: number;
  readonly wake: () => void;
  timer: ReturnType<typeof setTimeout> | undefined;
}

export function createClientClock(
  realNow: () => number = realDateNow,
  realMono: () => number = realPerfNow,
): ClientClock {
  let offset = 0;
  let rate = 0;
  let anchor = realMono();
  let mono0 = anchor;
  // The wall clock runs from the machine's reading at the start, on the monotonic clock (as a
  // simulated node's: wall = mono + offset): a step of the machine's clock during the run, which
  // no schedule asked for, does not reach the client (a step forward would, for one, make its
  // workload believe the run's horizon had passed).
  const wallAtMono0 = realNow() - mono0;
  const monoAt = (m: number): number => mono0 + (m - anchor) * (1 + rate);
  const delay = (ms: number): number => (rate === 0 ? ms : Math.max(0, ms / (1 + rate)));
  // A sleep ends when the monotonic clock reaches its deadline: a drift that starts while it
  // waits moves its end, as a simulated client's timer's (src/sim/node.ts).
  const sleeping = new Set<Sleeper>();
  const driftListeners: (() => void)[] = [];
  const arm = (s: Sleeper): void => {
    s.timer = realSetTimeout(
      () => {
        // Node's timers may fire a fraction of a millisecond early: never before the deadline.
        if (monoAt(realMono()) < s.deadlineMono) return arm(s);
        sleeping.delete(s);
        s.wake();
      },
      // Node fires a longer timer after 1 ms; held to its longest, it is armed again then.
      Math.min(MAX_TIMER_MS, delay(Math.max(0, s.deadlineMono - monoAt(realMono())))),
    );
  };
  /** Moves every pending sleep and timer to where the clock now puts its deadline. */
  const retime = (): void => {
    for (const s of sleeping) {
      realClearTimeout(s.timer);
      arm(s);
    }
    for (const listener of driftListeners) listener();
  };
  return {
    now: () => wallAtMono0 + monoAt(realMono()) + offset,
    mono: () => monoAt(realMono()),
    delay,
    sleep: (ms) =>
      new Promise<void>((wake) => {
        const s: Sleeper = { deadlineMono: monoAt(realMono()) + ms, wake, timer: undefined };
        sleeping.add(s);
        arm(s);
      }),
    jump(deltaMs) {
      offset += deltaMs;
    },
    drift(newRate) {
      const m = realMono();
      mono0 = monoAt(m);
      anchor = m;
      rate = newRate;
      retime();
    },
    rewind(mono) {
      anchor = realMono();
      mono0 = mono;
      retime();
    },
    onDrift(listener) {
      driftListeners.push(listener);
    },
  };
}
