/**
 * Starting a search at any run index of a seed without walking to it.
 *
 * fast-check gives run index i the random generator of the seed jumped i + 1 times, and the
 * run id i (which sets its size bias). Its replay path (`path: "i"`) gets there by jumping
 * i times from the seed, about 0.4 µs a jump: a parallel search whose blocks each walked from
 * the seed spent 3–6% of its CPU on it. A `RunCursor` walks the seed's generators once, in
 * index order, and hands each block the state it starts from; `paramsFrom` then starts
 * fast-check right there, with the block's run ids, so the runs are the ones the sequential
 * search gives those indices.
 */
import type fc from "fast-check";
import { xorshift128plus, xorshift128plusFromState } from "pure-rand/generator/xorshift128plus";
import { seedSequence } from "./seed-sequence.js";

/** The seed's generator state just before run index `index` (after `index` jumps). */
export interface RunPosition {
  readonly index: number;
  readonly state: readonly number[];
}

/** Walks a seed's generators forward; positions must be asked for in increasing index order. */
export interface RunCursor {
  at(index: number): RunPosition;
}

export function runCursor(seed: number): RunCursor {
  // The generator `seedSequence`'s randomType names.
  const rng = xorshift128plus(seed);
  let index = 0;
  return {
    at(target) {
      if (!Number.isSafeInteger(target) || target < index) {
        throw new RangeError(`runCursor: run index ${target} is behind the cursor (at ${index})`);
      }
      for (; index < target; index++) rng.jump();
      return { index, state: rng.getState() };
    },
  };
}

/** fast-check parameters whose runs are the seed's from `from.index` on. */
export function paramsFrom<T>(seed: number, from: RunPosition): fc.Parameters<T> {
  const offset = from.index;
  const runIdsFrom: fc.Plugin<T> = () => ({
    decorateGenerate: (generate) => (mrng, runId) =>
      generate(mrng, runId === undefined ? undefined : runId + offset),
  });
  return {
    ...seedSequence<T>(),
    seed,
    randomType: () => xorshift128plusFromState(from.state),
    plugins: [runIdsFrom],
  };
}
