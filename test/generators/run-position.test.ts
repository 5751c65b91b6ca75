/**
 * Starting fast-check at a run index without walking to it (src/generators/run-position.ts):
 * the runs from a cursor's position are the runs fast-check's own replay path gives those
 * indices — values and size bias alike — for any seed and index.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { paramsFrom, runCursor } from "../../src/generators/run-position.js";
import { seedSequence } from "../../src/generators/seed-sequence.js";

/** Values whose size grows with the run id: a wrong run id shows as a different length. */
const sized = fc.array(fc.integer(), { maxLength: 40 });

/** The values of runs [start, start + n) of `seed`, as fast-check's replay path gives them. */
function byPath(seed: number, start: number, n: number): number[][] {
  return fc.sample(sized, { ...seedSequence<number[]>(), seed, path: String(start), numRuns: n });
}

/** The same runs, from a cursor's position. */
async function fromCursor(seed: number, start: number, n: number): Promise<number[][]> {
  const seen: number[][] = [];
  const property = fc.property(sized, (v) => {
    seen.push(v);
  });
  await fc.check(property, { ...paramsFrom<[number[]]>(seed, runCursor(seed).at(start)), numRuns: n });
  return seen;
}

describe("runCursor and paramsFrom", () => {
  it("give the runs fast-check's replay path gives, at any seed and index", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer(),
        fc.nat({ max: 3000 }),
        fc.integer({ min: 1, max: 20 }),
        async (seed, start, n) => {
          expect(await fromCursor(seed, start, n)).toEqual(byPath(seed, start, n));
        },
      ),
      { numRuns: 40 },
    );
  });

  it("serve increasing indices from one walk, each position as a fresh cursor gives it", () => {
    const walk = runCursor(7);
    for (const i of [0, 0, 3, 250, 251, 4000]) expect(walk.at(i)).toEqual(runCursor(7).at(i));
  });

  it("refuse to go back: a block handed out of order would otherwise get another index's runs", () => {
    const walk = runCursor(7);
    walk.at(10);
    expect(() => walk.at(9)).toThrow(/behind the cursor/);
    expect(() => walk.at(-1)).toThrow(RangeError);
  });

  it("differ from the seed's start when the index is not 0 (the position is not ignored)", async () => {
    expect(await fromCursor(5, 100, 3)).not.toEqual(byPath(5, 0, 3));
  });
});
