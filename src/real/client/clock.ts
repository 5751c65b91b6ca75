/**
 * A client process's own wall clock: the machine's clock plus an offset the schedule can
 * step (clock-jump) or make drift (clock-drift). Lock algorithms read it through env.now()
 * and wait on it through env.sleep(), as real clients use their host's clock.
 */
export interface ClientClock {
  now(): number;
  /** Waits `ms` by this clock (a drifting clock makes real waits shorter or longer). */
  sleep(ms: number): Promise<void>;
  jump(deltaMs: number): void;
  drift(rate: number): void;
}

export function createClientClock(realNow: () => number = Date.now): ClientClock {
  let offset = 0;
  let rate = 0;
  let anchor = realNow();
  const offsetAt = (t: number): number => offset + rate * (t - anchor);
  return {
    now: () => {
      const t = realNow();
      return t + offsetAt(t);
    },
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms / (1 + rate)))),
    jump(deltaMs) {
      offset += deltaMs;
    },
    drift(newRate) {
      const t = realNow();
      offset = offsetAt(t);
      anchor = t;
      rate = newRate;
    },
  };
}
