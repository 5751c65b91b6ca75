/**
 * A client's clock (src/real/client/clock.ts) and its installation as the whole process's
 * (process-clock.ts), which is how client clock faults reach a lock library: redlock's validity
 * check and the other libraries' timeouts read Date.now() and wait with setTimeout.
 */
import timers from "node:timers";
import { afterEach, describe, expect, it } from "vitest";
import { type ClientClock, createClientClock } from "../../src/real/client/clock.js";
import { installProcessClock } from "../../src/real/client/process-clock.js";

/** A client clock over hand-driven real clocks. */
function handClock(): { clock: ClientClock; advance(ms: number): void; stepMachine(ms: number): void } {
  let wall = 1_700_000_000_000;
  let mono = 5_000;
  return {
    clock: createClientClock(
      () => wall,
      () => mono,
    ),
    advance(ms) {
      wall += ms;
      mono += ms;
    },
    stepMachine(ms) {
      wall += ms;
    },
  };
}

describe("a client's clock", () => {
  it("a jump steps the wall clock only", () => {
    const { clock, advance } = handClock();
    const wall0 = clock.now();
    const mono0 = clock.mono();
    clock.jump(-3_000);
    advance(100);
    expect(clock.now() - wall0).toBe(-2_900);
    expect(clock.mono() - mono0).toBe(100);
    expect(clock.delay(1_000)).toBe(1_000);
  });

  it("reads the machine's wall clock at its start, then runs on the monotonic clock: a step of the machine's clock does not reach it", () => {
    const { clock, advance, stepMachine } = handClock();
    const wall0 = clock.now();
    expect(wall0).toBe(1_700_000_000_000);
    stepMachine(10_000);
    advance(100);
    expect(clock.now() - wall0).toBe(100);
  });

  it("a drift changes the rate of both clocks and of waits, from the moment it starts", () => {
    const { clock, advance } = handClock();
    const wall0 = clock.now();
    const mono0 = clock.mono();
    advance(1_000);
    clock.drift(0.5);
    advance(1_000);
    expect(clock.now() - wall0).toBe(2_500);
    expect(clock.mono() - mono0).toBe(2_500);
    expect(clock.delay(1_500)).toBe(1_000);
    clock.drift(-0.5);
    advance(1_000);
    expect(clock.mono() - mono0).toBe(3_000);
    expect(clock.delay(1_000)).toBe(2_000);
    clock.jump(7);
    expect(clock.now() - clock.mono()).toBe(wall0 - mono0 + 7);
  });

  it("a rewind (a pause whose clocks stopped) sets both clocks back to a reading taken before it, and they run on from there", () => {
    const { clock, advance } = handClock();
    const wall0 = clock.now();
    const stoppedAt = clock.mono();
    advance(3_000);
    clock.rewind(stoppedAt);
    expect(clock.mono()).toBe(stoppedAt);
    expect(clock.now()).toBe(wall0);
    advance(100);
    expect(clock.mono() - stoppedAt).toBe(100);
    expect(clock.now() - wall0).toBe(100);
  });
});

describe("a client's sleep", () => {
  it("ends when its clock says so: a drift that starts while it waits moves its end", async () => {
    // 10^7 ms by a clock that then runs 10^7 times faster: it ends only if it was timed again.
    const clock = createClientClock();
    const slept = clock.sleep(10_000_000);
    clock.drift(9_999_999);
    await slept;
    expect(clock.mono()).toBeGreaterThan(10_000_000);
  });

  it("a rewind while it waits moves its end later: the lost time is waited again", async () => {
    const clock = createClientClock();
    const start = performance.now();
    const slept = clock.sleep(60);
    await new Promise((r) => setTimeout(r, 40));
    clock.rewind(clock.mono() - 40);
    await slept;
    expect(performance.now() - start).toBeGreaterThanOrEqual(99);
  });
});

/** Resolves with 3 once an interval of `ms` (set through the global setInterval) has ticked three times. */
const threeTicks = (ms: number): Promise<number> =>
  new Promise<number>((resolve) => {
    let n = 0;
    const h = setInterval(() => {
      if (++n === 3) {
        clearInterval(h);
        resolve(n);
      }
    }, ms);
  });

describe("the client's clock as the process's", () => {
  let uninstall: (() => void) | null = null;
  afterEach(() => {
    uninstall?.();
    uninstall = null;
  });

  const stub = (over: Partial<ClientClock>): ClientClock => ({
    now: () => Date.UTC(2031, 0, 2, 3, 4, 5),
    mono: () => 42,
    delay: (ms) => ms,
    sleep: async () => {},
    jump() {},
    drift() {},
    rewind() {},
    onDrift() {},
    ...over,
  });

  it("Date.now(), new Date() and Date() read the client's wall clock; dates of a given time do not", () => {
    const RealDate = Date;
    const at = Date.UTC(2031, 0, 2, 3, 4, 5);
    uninstall = installProcessClock(stub({}));
    expect(Date.now()).toBe(at);
    // biome-ignore lint/complexity/useDateNow: the constructor is what is tested here
    expect(new Date().getTime()).toBe(at);
    expect(Date()).toBe(new RealDate(at).toString());
    expect(new Date(0).getTime()).toBe(0);
    expect(new Date(2020, 1, 3).getFullYear()).toBe(2020);
    expect(Date.UTC(2020, 0, 1)).toBe(RealDate.UTC(2020, 0, 1));
    expect(Date.parse("2020-01-01T00:00:00Z")).toBe(1_577_836_800_000);
    expect(new Date()).toBeInstanceOf(RealDate);
    expect(new RealDate(1)).toBeInstanceOf(Date);
    class Sub extends Date {}
    expect(new Sub().getTime()).toBe(at);
    expect(new Sub()).toBeInstanceOf(Sub);
    expect(performance.now()).toBe(42);
  });

  it("timers wait by the client's monotonic clock", async () => {
    // A timer of 10^7 ms that the clock says passes in 1 real ms: it fires only if scaled.
    const asked: number[] = [];
    uninstall = installProcessClock(
      stub({
        delay: (ms) => {
          asked.push(ms);
          return ms / 10_000_000;
        },
      }),
    );
    await new Promise((resolve) => setTimeout(resolve, 10_000_000));
    await new Promise((resolve) => timers.setTimeout(resolve, 10_000_000));
    const ticks = await threeTicks(10_000_000);
    expect(ticks).toBe(3);
    expect(asked).toEqual([10_000_000, 10_000_000, 10_000_000]);
    // No delay (or none given) is passed on as it is.
    await new Promise((resolve) => setTimeout(resolve));
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(asked).toHaveLength(3);
  });

  it("a drift that starts while a timer waits moves its end; a cleared timer stays cleared", async () => {
    // Timers of 10^7 ms, then the clock runs 10^7 times faster: they fire only if re-timed.
    const clock = createClientClock();
    uninstall = installProcessClock(clock);
    const fired: string[] = [];
    const timeout = new Promise<void>((resolve) => setTimeout(resolve, 10_000_000));
    const viaModule = new Promise<void>((resolve) => timers.setTimeout(resolve, 10_000_000));
    const cleared = setTimeout(() => fired.push("cleared"), 10_000_000);
    const clearedInterval = setInterval(() => fired.push("cleared interval"), 10_000_000);
    const ticks = threeTicks(10_000_000);
    clearTimeout(cleared);
    clearInterval(clearedInterval);
    clock.drift(9_999_999);
    await timeout;
    await viaModule;
    expect(await ticks).toBe(3);
    await new Promise((resolve) => setTimeout(resolve, 10_000_000 * 20));
    expect(fired).toEqual([]);
  });

  it("a timer longer than Node takes once a slow clock stretches it waits, not 1 ms, and warns of nothing", async () => {
    // Node fires a timer of more than 2^31 − 1 ms after 1 ms. Libraries set "never" timers of
    // exactly that; a clock running 20% slow stretches them past it, at setting and at a drift.
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.name);
    process.on("warning", onWarning);
    const realWait = (ms: number) => new Promise((resolve) => timers.setTimeout(resolve, ms));
    try {
      const clock = createClientClock();
      uninstall = installProcessClock(clock);
      const fired: string[] = [];
      const before = setTimeout(() => fired.push("set before the drift"), 2 ** 31 - 1);
      clock.drift(-0.2);
      const after = setTimeout(() => fired.push("set after it"), 2 ** 31 - 1);
      const interval = setInterval(() => fired.push("interval"), 2 ** 31 - 1);
      uninstall();
      uninstall = null;
      await realWait(60);
      expect(fired).toEqual([]);
      expect(warnings).not.toContain("TimeoutOverflowWarning");
      clearTimeout(before);
      clearTimeout(after);
      clearInterval(interval);
    } finally {
      process.off("warning", onWarning);
    }
  });

  it("puts everything back", () => {
    const before = {
      Date,
      setTimeout,
      setInterval,
      clearTimeout,
      clearInterval,
      t: timers.setTimeout,
      perf: performance.now,
    };
    installProcessClock(stub({ now: () => 0 }))();
    expect(Date).toBe(before.Date);
    expect(setTimeout).toBe(before.setTimeout);
    expect(setInterval).toBe(before.setInterval);
    expect(clearTimeout).toBe(before.clearTimeout);
    expect(clearInterval).toBe(before.clearInterval);
    expect(timers.setTimeout).toBe(before.t);
    expect(performance.now).toBe(before.perf);
    expect(Math.abs(Date.now() - new before.Date().getTime())).toBeLessThan(60_000);
  });
});
