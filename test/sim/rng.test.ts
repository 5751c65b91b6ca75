/** The random streams: the same numbers as seedrandom's Alea, seed for seed, draw for draw. */
import fc from "fast-check";
import seedrandom from "seedrandom";
import { describe, expect, it } from "vitest";
import { alea, createRandomStreams } from "../../src/sim/rng.js";

describe("random streams", () => {
  it("draw what seedrandom.alea draws for the same seed", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: "binary", maxLength: 60 }),
        fc.integer({ min: 1, max: 300 }),
        (seed, n) => {
          const ours = alea(seed);
          const reference = seedrandom.alea(seed);
          for (let i = 0; i < n; i++) expect(ours()).toBe(reference());
        },
      ),
      { numRuns: 300, seed: 9 },
    );
  });

  it("name streams by seed and purpose: same name, same numbers; another name, others", () => {
    const a = createRandomStreams(7);
    const b = createRandomStreams(7);
    const x = a.stream("link:client:0>server:1");
    expect(a.stream("link:client:0>server:1")).toBe(x);
    const first = [x(), x(), x()];
    const again = b.stream("link:client:0>server:1");
    expect([again(), again(), again()]).toEqual(first);
    const other = b.stream("link:client:1>server:1");
    expect([other(), other(), other()]).not.toEqual(first);
    const reference = seedrandom.alea("7/link:client:0>server:1");
    expect([reference(), reference(), reference()]).toEqual(first);
  });
});
