import { describe, expect, it } from "vitest";
import { noSoonerThan } from "../../src/real/no-sooner-than.js";

describe("noSoonerThan", () => {
  it("re-arms when a timer fires before the deadline on the given clock", async () => {
    // A clock that reads 0.3 ms behind the wall on its first two reads after arming, as an
    // event loop's cached time can: the callback must wait until the clock reaches the deadline.
    const origin = performance.now();
    let lag = 0.3;
    const reads: number[] = [];
    const now = (): number => {
      const ns = (performance.now() - origin - lag) * 1e6;
      reads.push(ns);
      lag = Math.max(0, lag - 0.1);
      return ns;
    };
    const due = 5e6;
    const firedAt = await new Promise<number>((resolve) =>
      noSoonerThan(due, now, () => resolve(reads.at(-1)!)),
    );
    expect(firedAt).toBeGreaterThanOrEqual(due);
  });

  it("runs at once when the deadline has passed, and a cleared timer never runs", async () => {
    let ran = 0;
    noSoonerThan(
      0,
      () => 1,
      () => ran++,
    );
    expect(ran).toBe(1);
    const timers = new Set<NodeJS.Timeout>();
    noSoonerThan(
      Number.MAX_SAFE_INTEGER,
      () => 0,
      () => ran++,
      timers,
    );
    expect(timers.size).toBe(1);
    for (const t of timers) clearTimeout(t);
    await new Promise((r) => setTimeout(r, 20));
    expect(ran).toBe(1);
  });
});
