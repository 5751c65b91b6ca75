/**
 * The shrinker running candidates at once (real servers: `parallel` 2). It keeps the same
 * candidate a one-at-a-time pass keeps, whatever order the answers come back in; it abandons
 * the later candidates of a batch once an earlier one failed; and it never has more than
 * `parallel` probes out.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { scheduleArb } from "../../src/generators/index.js";
import { scheduleWeight } from "../../src/runner/schedule-size.js";
import { shrinkSchedule } from "../../src/runner/shrink/shrink.js";
import type { Schedule } from "../../src/schedule/schedule.js";
import { target } from "./schedules.js";

const arb = scheduleArb({
  target: "sim:redlock",
  resource: "unfenced",
  options: target("sim:redlock").defaults,
  faults: { categories: ["pause", "clock", "partition", "crash", "delay"], maxFaults: 6 },
});

/** A synthetic failure with several ways to stay failing: a long pause and some write, or two clients with a partition. */
function fails(s: Schedule): boolean {
  const longPause = s.faults.some(
    (f) => (f.kind === "pause" || f.kind === "pause-at") && f.durationMs >= 700,
  );
  const writes = s.clients.some((c) => c.cycles.some((cy) => cy.writes > 0));
  const split = s.clients.length >= 2 && s.faults.some((f) => f.kind === "partition");
  return (longPause && writes) || split;
}

const tick = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A failing schedule, candidates run `parallel` at a time, and each probe's delay in ticks. */
const failingInBatches = [
  arb.filter(fails),
  fc.integer({ min: 2, max: 4 }),
  fc.infiniteStream(fc.integer({ min: 0, max: 3 })),
] as const;

describe("shrinkSchedule with candidates at once", () => {
  it("keeps what a one-at-a-time pass keeps, answers coming back in any order", async () => {
    await fc.assert(
      fc.asyncProperty(...failingInBatches, async (s, parallel, delays) => {
        const one = await shrinkSchedule(s, async (c) => fails(c), { maxRuns: 400 });
        const many = await shrinkSchedule(
          s,
          async (c) => {
            await tick(delays.next().value);
            return fails(c);
          },
          { maxRuns: 400 * parallel },
          undefined,
          undefined,
          { parallel },
        );
        expect(many.schedule).toEqual(one.schedule);
        expect(many.steps).toBe(one.steps);
      }),
      { numRuns: 15 },
    );
  }, 60_000);

  it("has at most `parallel` probes out, and abandons those after a failing one", async () => {
    const s = fc.sample(arb.filter(fails), { numRuns: 1, seed: 3 })[0]!;
    let out = 0;
    let most = 0;
    let abandoned = 0;
    let answeredAfterAbandon = 0;
    let index = 0;
    await shrinkSchedule(
      s,
      async (c, signal) => {
        const mine = index++;
        out++;
        most = Math.max(most, out);
        try {
          // Later candidates of a batch answer slowly: the first's failure must not wait for them.
          for (let t = 0; t < ((mine % 3) + 1) * 20; t += 5) {
            if (signal.aborted) {
              abandoned++;
              return false;
            }
            await tick(5);
          }
          if (signal.aborted) answeredAfterAbandon++;
          return fails(c);
        } finally {
          out--;
        }
      },
      { maxRuns: 300 },
      undefined,
      undefined,
      { parallel: 3 },
    );
    expect(most).toBe(3);
    expect(out).toBe(0);
    expect(abandoned).toBeGreaterThan(0);
    expect(answeredAfterAbandon).toBe(0);
  });

  it('with keep: "smallest", keeps the lightest failing candidate of each batch and abandons only heavier ones', async () => {
    await fc.assert(
      fc.asyncProperty(...failingInBatches, async (s, parallel, delays) => {
        /** Every probe: its batch, weight, and answer (null: abandoned before it answered). */
        const probes: { batch: number; w: number; fails: boolean | null }[] = [];
        const keptBatches: { batch: number; w: number }[] = [];
        let batch = 0;
        let starting = false;
        const r = await shrinkSchedule(
          s,
          async (c, signal) => {
            // A batch's probes all start in one go, before any of them answers.
            if (!starting) {
              batch++;
              starting = true;
              queueMicrotask(() => {
                starting = false;
              });
            }
            const mine = { batch, w: scheduleWeight(c), fails: null as boolean | null };
            probes.push(mine);
            for (let t = delays.next().value; t > 0; t--) {
              await tick(1);
              if (signal.aborted) break;
            }
            if (signal.aborted) return false;
            mine.fails = fails(c);
            return mine.fails;
          },
          { maxRuns: 400 * parallel },
          undefined,
          undefined,
          {
            parallel,
            keep: "smallest",
            onKept: async (kept) => {
              keptBatches.push({ batch, w: scheduleWeight(kept) });
            },
          },
        );
        expect(fails(r.schedule)).toBe(true);
        expect(keptBatches.length).toBe(r.steps);
        for (const k of keptBatches) {
          const mates = probes.filter((p) => p.batch === k.batch);
          const failing = mates.filter((p) => p.fails === true).map((p) => p.w);
          expect(failing).toContain(k.w);
          expect(Math.min(...failing)).toBe(k.w);
          // An abandoned probe could not have been smaller.
          for (const p of mates) if (p.fails === null) expect(p.w).toBeGreaterThanOrEqual(k.w);
        }
      }),
      { numRuns: 15 },
    );
  }, 60_000);

  it('takes a smaller failing candidate later in a batch with keep: "smallest", not with "first"', async () => {
    const firstKept = async (s: Schedule, keep: "first" | "smallest"): Promise<number> => {
      let w = scheduleWeight(s);
      let heard = false;
      await shrinkSchedule(s, async (c) => fails(c), { maxRuns: 4 }, undefined, undefined, {
        parallel: 4,
        keep,
        onKept: async (kept) => {
          if (!heard) w = scheduleWeight(kept);
          heard = true;
        },
      });
      return w;
    };
    let lighter = 0;
    for (const s of fc.sample(arb.filter(fails), { numRuns: 20, seed: 7 })) {
      const first = await firstKept(s, "first");
      const smallest = await firstKept(s, "smallest");
      expect(smallest).toBeLessThanOrEqual(first);
      if (smallest < first) lighter++;
    }
    expect(lighter).toBeGreaterThan(0);
  });

  it("hears of each kept candidate once, in order, and never of one it did not keep", async () => {
    const s = fc.sample(arb.filter(fails), { numRuns: 1, seed: 5 })[0]!;
    const heard: Schedule[] = [];
    const r = await shrinkSchedule(
      s,
      async (c) => {
        await tick(Math.floor(Math.random() * 3));
        return fails(c);
      },
      { maxRuns: 1000 },
      undefined,
      undefined,
      {
        parallel: 2,
        onKept: async (kept) => {
          heard.push(kept);
        },
      },
    );
    expect(heard).toHaveLength(r.steps);
    expect(heard.at(-1)).toEqual(r.schedule);
  });
});
