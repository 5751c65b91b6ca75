/** The simulator's own Alea (src/sim/rng.ts) draws exactly the numbers of seedrandom's. */
import fc from "fast-check";
import seedrandom from "seedrandom";
import { describe, expect, it } from "vitest";
import { alea, aleaMany, createRandomStreams } from "../../src/sim/rng.js";

function draws(r: () => number, n: number): number[] {
  return Array.from({ length: n }, () => r());
}

describe("alea", () => {
  it("draws seedrandom.alea's numbers, bit for bit, for any seed string", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 60, unit: "binary" }), (seed) => {
        expect(draws(alea(seed), 50)).toEqual(draws(seedrandom.alea(seed), 50));
      }),
      { numRuns: 300, seed: 5 },
    );
  });

  it("matches for the seeds the simulator uses, over long streams", () => {
    for (const seed of [
      "0/link:client:0>server:1",
      "4294967295/election:server:2",
      "17/link:server:4>client:3",
    ]) {
      expect(draws(alea(seed), 20_000)).toEqual(draws(seedrandom.alea(seed), 20_000));
    }
  });

  it("aleaMany seeds many streams at once with alea's numbers, whatever the mix of lengths", () => {
    fc.assert(
      fc.property(fc.array(fc.string({ maxLength: 40, unit: "binary" }), { maxLength: 14 }), (seeds) => {
        // Many of one length too, so that the four-at-once path runs, with leftovers.
        const all = [
          ...seeds,
          ...seeds.map((s) => `${s}x`),
          ...seeds.map((s) => `${s}y`),
          ...seeds.map((s) => `${s}z`),
        ];
        const many = aleaMany(all);
        expect(many.map((r) => draws(r, 5))).toEqual(all.map((s) => draws(seedrandom.alea(s), 5)));
      }),
      { numRuns: 200, seed: 9 },
    );
  });

  it("streams() gives the streams stream() gives: made together or one by one, never twice", () => {
    const together = createRandomStreams(7);
    const early = together.stream("link:c>s");
    const [a, b, c] = together.streams(["link:a>b", "link:c>s", "link:b>a"]);
    expect(b).toBe(early);
    expect(together.stream("link:a>b")).toBe(a);
    const alone = createRandomStreams(7);
    expect(draws(a!, 8)).toEqual(draws(alone.stream("link:a>b"), 8));
    expect(draws(c!, 8)).toEqual(draws(alone.stream("link:b>a"), 8));
  });

  it("names streams seed/purpose and keeps one stream per purpose", () => {
    const streams = createRandomStreams(42);
    const a = streams.stream("link:a>b");
    expect(streams.stream("link:a>b")).toBe(a);
    expect(draws(a, 10)).toEqual(draws(seedrandom.alea("42/link:a>b"), 10));
  });
});
