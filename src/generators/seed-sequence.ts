/**
 * The fast-check parameters that decide which value each run index of a seed gets, fixed at
 * fast-check's defaults. fast-check merges the caller's `fc.configureGlobal` settings into
 * every `fc.check` and `fc.sample`: a test setup that sets `randomType`, `examples`,
 * `unbiased` or `skipEqualValues` would otherwise change lockcheck's schedules — and only in
 * the caller's thread, not in `fuzz`'s worker threads, which load fast-check afresh — so a
 * seed would no longer name the same runs.
 */
import fc from "fast-check";

export function seedSequence<T>(): fc.Parameters<T> {
  return {
    randomType: "xorshift128plus",
    examples: [],
    unbiased: false,
    skipEqualValues: false,
    ignoreEqualValues: false,
  };
}

/** The value `arb` gives run 0 of `seed` (what `run --seed` and each real fuzz run use). */
export function firstOfSeed<T>(arb: fc.Arbitrary<T>, seed: number): T | undefined {
  return fc.sample(arb, { ...seedSequence<T>(), seed, numRuns: 1 })[0];
}
