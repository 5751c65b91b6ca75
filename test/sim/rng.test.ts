/** The simulator's own Alea (src/sim/rng.ts) draws exactly the numbers of seedrandom's. */
import fc from "fast-check";
import seedrandom from "seedrandom";
import { describe, expect, it } from "vitest";
import { alea, createRandomStreams } from "../../src/sim/rng.js";

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

  it("names streams seed/purpose and keeps one stream per purpose", () => {
    const streams = createRandomStreams(42);
    const a = streams.stream("link:a>b");
    expect(streams.stream("link:a>b")).toBe(a);
    expect(draws(a, 10)).toEqual(draws(seedrandom.alea("42/link:a>b"), 10));
  });
});
