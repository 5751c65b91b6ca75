/**
 * Property tests of src/checkers/linearizable/linearizable.ts against the brute-force definition
 * (test/lin/brute-force.ts), for every model:
 * - a history made by running a correct implementation with random concurrency, `info` ops
 *   and refused lock calls is always linearizable;
 * - after corrupting one response of a small such history, the checker says "not
 *   linearizable" exactly when the brute force does (and both answers occur);
 * - on small histories with arbitrary outputs, the two agree;
 * - whenever the checker says "not linearizable", the partial linearization it reports is a
 *   legal sequence for the model that respects real time, and omits the op it got stuck on.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { checkLinearizable } from "../../src/checkers/linearizable/linearizable.js";
import type { LinOp, Model } from "../../src/checkers/linearizable/models/model.js";
import {
  casRegisterKit,
  fencedMutexKit,
  kvKit,
  kvNarrowKit,
  type ModelKit,
  mutexKit,
  ownerMutexKit,
  type PlannedOp,
  plan,
  simulate,
} from "./arbitraries.js";
import { bruteForceLinearizable } from "./brute-force.js";

// biome-ignore lint/suspicious/noExplicitAny: kits differ in state, input and output types
const KITS: ModelKit<any, any, any>[] = [
  mutexKit,
  ownerMutexKit,
  fencedMutexKit,
  casRegisterKit,
  kvKit,
  kvNarrowKit,
];

/** Checks the verdict's evidence when the checker says "not linearizable". */
function expectSoundEvidence<I, O>(model: Model<unknown, I, O>, ops: readonly LinOp<I, O>[]): boolean {
  const r = checkLinearizable(model, ops);
  if (r.valid !== false) return r.valid === true;
  const f = r.failure;
  expect(f).toBeDefined();
  if (f === undefined) return false;
  const partOps = f.ops as readonly LinOp<I, O>[];
  expect(f.partial).not.toContain(f.stuck);
  expect(f.window).not.toContain(f.stuck);
  // The partial linearization is legal for the model...
  let state = model.init();
  for (const i of f.partial) {
    const op = partOps[i] as LinOp<I, O>;
    const next = model.step(state, op.input, op.output);
    expect(next, `op ${i} of the partial linearization is legal`).toBeDefined();
    state = next as unknown;
  }
  // ...and never puts an op before one that returned before it was called.
  for (let a = 0; a < f.partial.length; a++) {
    for (let b = a + 1; b < f.partial.length; b++) {
      const early = partOps[f.partial[a] as number] as LinOp<I, O>;
      const late = partOps[f.partial[b] as number] as LinOp<I, O>;
      expect(late.ret < early.call).toBe(false);
    }
  }
  // Every op that returned before the stuck op returned is linearized.
  const stuck = partOps[f.stuck] as LinOp<I, O>;
  partOps.forEach((op, i) => {
    if (op.ret < stuck.ret) expect(f.partial).toContain(i);
  });
  return false;
}

/** Replaces one definite op's output, or (for locks) makes a refused call succeed or a success fail. */
function corruptOne<I, O>(
  kit: ModelKit<unknown, I, O>,
  ops: readonly LinOp<I, O>[],
  refused: readonly LinOp<I, O>[],
  pick: number,
  choice: number,
): LinOp<I, O>[] | undefined {
  const candidates: (() => LinOp<I, O>[] | undefined)[] = [];
  ops.forEach((op, i) => {
    if (op.output === undefined) return;
    const changed = kit.corrupt(op.input, op.output, choice);
    if (changed !== undefined)
      candidates.push(() => ops.map((o, j) => (j === i ? { ...o, output: changed } : o)));
    if (kit.name.includes("mutex")) candidates.push(() => ops.filter((_, j) => j !== i));
  });
  for (const r of refused) candidates.push(() => [...ops, r].sort((a, b) => a.call - b.call));
  if (candidates.length === 0) return undefined;
  return (candidates[pick % candidates.length] as () => LinOp<I, O>[] | undefined)();
}

describe.each(KITS)("linearizable: $name model", (kit) => {
  it("finds every history of a correct implementation linearizable", () => {
    fc.assert(
      // One call at a time per process (at most 5 overlap) and few info calls: a polynomial search.
      fc.property(plan(40, 5, { free: false, maxInfo: 4 }), (planned) => {
        const { ops } = simulate(kit, planned);
        const r = checkLinearizable(kit.model(), ops);
        expect(r.valid).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it("finds long histories of a correct implementation linearizable (compact cache entries span many words)", () => {
    fc.assert(
      // Few info calls and one call at a time per process: the search stays polynomial.
      fc.property(plan(400, 5, { info: 0, free: false }), fc.nat(), (planned, seed) => {
        // Still a few info calls, at random places.
        const shaped = planned.map(
          (p, i): PlannedOp => ((i + seed) % 50 === 0 ? { ...p, fate: i % 2 === 0 ? 1 : 2 } : p),
        );
        const { ops } = simulate(kit, shaped);
        expect(checkLinearizable(kit.model(), ops).valid).toBe(true);
      }),
      { numRuns: 40 },
    );
  });

  it("agrees with brute force after one corrupted response", () => {
    const seen = { linearizable: 0, not: 0 };
    fc.assert(
      fc.property(plan(7, 3), fc.nat(), fc.nat(), (planned, pick, choice) => {
        const { ops, refused } = simulate(kit, planned);
        const corrupted = corruptOne(kit, ops, refused, pick, choice);
        if (corrupted === undefined) return;
        const expected = bruteForceLinearizable(kit.reference(), corrupted);
        const actual = expectSoundEvidence(kit.model(), corrupted);
        expect(actual).toBe(expected);
        if (expected) seen.linearizable++;
        else seen.not++;
      }),
      { numRuns: 600 },
    );
    // Both answers must occur, or the property says little.
    expect(seen.linearizable).toBeGreaterThan(10);
    expect(seen.not).toBeGreaterThan(10);
  });

  it("agrees with brute force on small histories with arbitrary outcomes", () => {
    const seen = { linearizable: 0, not: 0 };
    fc.assert(
      fc.property(plan(7, 3), fc.array(fc.nat(), { minLength: 8, maxLength: 8 }), (planned, choices) => {
        // Simulate for the shapes, then give definite ops arbitrary (often wrong) outputs, drop
        // some lock calls and let some refused ones succeed.
        const { ops, refused } = simulate(kit, planned);
        const c = (i: number) => choices[i % choices.length] as number;
        const arbitrary = ops.flatMap((op, i) => {
          if (op.output === undefined || c(i) % 3 === 0) return [op];
          if (kit.name.includes("mutex") && c(i) % 5 === 1) return [];
          const changed = kit.corrupt(op.input, op.output, c(i));
          return [changed === undefined ? op : { ...op, output: changed }];
        });
        refused.forEach((r, i) => {
          if (c(i + 3) % 2 === 0) arbitrary.push(r);
        });
        const expected = bruteForceLinearizable(kit.reference(), arbitrary);
        expect(expectSoundEvidence(kit.model(), arbitrary)).toBe(expected);
        if (expected) seen.linearizable++;
        else seen.not++;
      }),
      { numRuns: 600 },
    );
    expect(seen.linearizable).toBeGreaterThan(10);
    expect(seen.not).toBeGreaterThan(10);
  });
});

describe("brute force reference", () => {
  // The reference must itself be right for the properties to mean anything.
  const op = (
    call: number,
    ret: number,
    f: "acquire" | "release",
    process = 0,
  ): LinOp<{ f: "acquire" | "release"; process: number; lock: string }, object> => ({
    process,
    call,
    ret,
    input: { f, process, lock: "" },
    output: Number.isFinite(ret) ? {} : undefined,
    refs: [call],
  });
  const mutex = mutexKit.reference();

  it("orders ops that do not overlap by real time", () => {
    expect(bruteForceLinearizable(mutex, [op(0, 1, "acquire"), op(2, 3, "release")])).toBe(true);
    expect(bruteForceLinearizable(mutex, [op(0, 1, "release"), op(2, 3, "acquire")])).toBe(false);
  });

  it("lets overlapping ops (closed intervals: touching counts) go in either order", () => {
    expect(bruteForceLinearizable(mutex, [op(2, 3, "acquire"), op(0, 2, "release")])).toBe(true);
  });

  it("lets an info op take effect late or never", () => {
    const pendingAcquire = op(0, Number.POSITIVE_INFINITY, "acquire", 1);
    expect(bruteForceLinearizable(mutex, [pendingAcquire, op(1, 2, "acquire"), op(3, 4, "release")])).toBe(
      true,
    );
    expect(bruteForceLinearizable(mutex, [pendingAcquire, op(1, 2, "release")])).toBe(true);
  });

  it("keeps planned ops valid for the generator", () => {
    const p: PlannedOp = {
      process: 0,
      gap: 0,
      free: false,
      toPoint: 0,
      toReturn: 0,
      choice: 0,
      choice2: 0,
      fate: 0,
    };
    expect(simulate(mutexKit, [p]).ops).toHaveLength(1);
  });
});
