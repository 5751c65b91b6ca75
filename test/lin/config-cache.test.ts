/**
 * The search's compact sets must be canonical: whatever order ops were added and removed in,
 * the same set must give the same stored words (else the cache could confuse two sets whose
 * hashes collide, or miss a configuration it has seen). Checked against a set built afresh.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ConfigCache, OpSet } from "../../src/checkers/linearizable/lin-config-cache.js";
import type { LinOp } from "../../src/checkers/linearizable/models/model.js";

/** `n` ops, some with unknown returns; positions as the checker computes them (calls, then returns, by time). */
function opsAndPositions(rets: readonly (number | null)[]) {
  const ops: LinOp<null, null>[] = rets.map((r, i) => ({
    process: i,
    call: i,
    ret: r === null ? Number.POSITIVE_INFINITY : i + r,
    input: null,
    output: null,
    refs: [i],
  }));
  const entries = ops.flatMap((op, i) => [
    { e: 2 * i, t: op.call, k: 0 },
    { e: 2 * i + 1, t: op.ret, k: 1 },
  ]);
  entries.sort((a, b) => a.t - b.t || a.k - b.k || a.e - b.e);
  const position = new Int32Array(2 * ops.length);
  entries.forEach((x, k) => {
    position[x.e] = k;
  });
  return { ops, position };
}

// Long enough that whole words of 32 ops fill up (fast-check keeps arrays short by default).
const history = fc.array(fc.option(fc.integer({ min: 0, max: 40 }), { freq: 4 }), {
  minLength: 1,
  maxLength: 300,
  size: "max",
});

describe("OpSet", () => {
  it("stores the same words for the same set, however it was built", () => {
    fc.assert(
      fc.property(
        history,
        fc.nat(),
        fc.array(fc.nat(), { maxLength: 100, size: "max" }),
        (rets, prefix, moves) => {
          const { ops, position } = opsAndPositions(rets);
          const set = new OpSet(ops, position);
          const members = new Set<number>();
          // Most ops first, as the search does (so whole words fill up), then arbitrary toggles.
          for (let op = 0; op < prefix % (ops.length + 1); op++) {
            set.add(op);
            members.add(op);
          }
          for (const m of moves) {
            const op = m % ops.length;
            if (members.has(op)) {
              set.remove(op);
              members.delete(op);
            } else {
              set.add(op);
              members.add(op);
            }
            expect(set.has(op)).toBe(members.has(op));
          }
          const fresh = new OpSet(ops, position);
          for (const op of [...members].sort((a, b) => a - b)) fresh.add(op);
          expect(set.compact()).toEqual(fresh.compact());
        },
      ),
      { numRuns: 300 },
    );
  });

  it("keeps words far behind the earliest unlinearized op out of what is stored", () => {
    const { ops, position } = opsAndPositions(Array.from({ length: 1000 }, () => 1));
    const set = new OpSet(ops, position);
    for (let op = 0; op < 900; op++) set.add(op);
    // 900 of 1000 ops: 28 full words are implied by `low`, and only the word holding op 900 is stored.
    expect(set.compact()).toEqual([28, 0xf, -1]);
  });
});

describe("ConfigCache", () => {
  it("tells configurations apart by set and state, even under the same hash", () => {
    const { ops, position } = opsAndPositions([1, 1, 1, null]);
    const cache = new ConfigCache();
    const a = new OpSet(ops, position);
    a.add(0);
    const b = new OpSet(ops, position);
    b.add(1);
    expect(cache.add(7, 7, 0, a)).toBe(true);
    expect(cache.add(7, 7, 0, a)).toBe(false);
    // Same (forced) hash and state, different set: a different configuration.
    expect(cache.add(7, 7, 0, b)).toBe(true);
    expect(cache.add(7, 7, 1, a)).toBe(true);
    b.add(3);
    expect(cache.add(7, 7, 0, b)).toBe(true);
    expect(cache.size).toBe(4);
  });
});
