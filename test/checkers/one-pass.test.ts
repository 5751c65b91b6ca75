/**
 * The one-pass file path (checkHistoryFile: parse, validate and step every checker with the
 * op's facts) must give exactly the verdicts of stepping each checker with the ops one by one,
 * and the checkers' lookup shortcuts (cached grants and lock states, the ascending token index)
 * must not change what they find.
 */
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CHECKER_NAMES, checkHistoryFile, createCheckers } from "../../src/checkers/index.js";
import { createStaleWriteChecker } from "../../src/checkers/stale-write.js";
import { createTokenOrderChecker } from "../../src/checkers/token-order.js";
import type { Verdict } from "../../src/checkers/verdict.js";
import type { Op } from "../../src/history/op.js";
import { writeHistory } from "../../src/history/write.js";
import { testTempDir } from "../temp-dir.js";
import { chaosHistory, fencedLockHistory } from "./arbitraries.js";
import { build } from "./build.js";

const dir = testTempDir("lockcheck-one-pass-");

/** Each checker stepped op by op through `step` (no shared facts). */
function oneByOne(ops: readonly Op[]): Verdict[] {
  return createCheckers(CHECKER_NAMES).map((c) => {
    for (const op of ops) c.step(op);
    return c.finish();
  });
}

let file = 0;
async function viaFile(ops: readonly Op[]): Promise<Verdict[]> {
  const path = join(dir, `h${file++}.jsonl`);
  const written = await writeHistory(path, ops);
  expect(written.ok).toBe(true);
  // Random histories may be empty.
  const checked = await checkHistoryFile(path, undefined, { allowEmpty: true });
  if (!checked.ok) throw new Error(checked.error[0]?.message);
  expect(checked.value.ops).toBe(ops.length);
  return checked.value.verdicts;
}

describe("checkHistoryFile", () => {
  it("gives the verdicts of stepping each checker op by op (random histories)", async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(chaosHistory, fencedLockHistory), async (ops) => {
        expect(await viaFile(ops)).toEqual(oneByOne(ops));
      }),
      { numRuns: 150 },
    );
  });

  it("reports validation errors instead of verdicts", async () => {
    const path = join(dir, "bad.jsonl");
    const b = build();
    b.acquire(1, 0);
    b.acquire(2, 0); // a second invoke while the first is open
    expect((await writeHistory(path, b.ops)).ok).toBe(true);
    const checked = await checkHistoryFile(path);
    expect(checked.ok).toBe(false);
    if (!checked.ok) expect(checked.error[0]).toMatchObject({ line: 2, field: "type" });
  });
});

describe("token-order's token index", () => {
  it("finds a reused token below the highest, whether it arrived in order or not", () => {
    const b = build();
    for (const [i, token] of [10n, 20n, 30n, 15n].entries()) {
      b.acquire(i * 10, i);
      b.granted(i * 10 + 1, i, `g${i}`, token);
    }
    b.acquire(50, 4);
    const reuseOfOrdered = b.granted(51, 4, "g4", 20n);
    b.acquire(60, 5);
    const reuseOfUnordered = b.granted(61, 5, "g5", 15n);
    const c = createTokenOrderChecker();
    for (const op of b.ops) c.step(op);
    const v = c.finish();
    expect(v.stats).toMatchObject({ tokenReuses: 2, tokenDecreases: 1 });
    expect(v.anomalies.filter((a) => a.kind === "token-reuse").map((a) => a.ops)).toEqual([
      [reuseOfOrdered, 3],
      [reuseOfUnordered, 7],
    ]);
  });
});

describe("stale-write's grant lookups", () => {
  it("uses the acquire ok's rank once it arrives, even after a write named the grant first", () => {
    // Process 1 writes under grant "b" before any acquire ok handed "b" out (so "b" ranks by
    // that write's index, after "a"); then "b" is handed out with a lower token than "a".
    const b = build();
    b.acquire(0, 0);
    b.granted(1, 0, "a", 5n);
    b.write(2, 1, "b");
    b.wrote(3, 1, "b", true);
    b.acquire(4, 2);
    b.granted(5, 2, "b", 1n);
    b.write(6, 0, "a", 5n);
    const newer = b.wrote(7, 0, "a", true, 5n);
    b.write(8, 1, "b", 1n);
    const stale = b.wrote(9, 1, "b", true, 1n);
    const c = createStaleWriteChecker();
    for (const op of b.ops) c.step(op);
    const v = c.finish();
    expect(v.valid).toBe(false);
    // Ranked by its acquire ok (token 1 < 5), process 1's second write is stale.
    expect(v.anomalies.map((a) => a.ops.slice(0, 2))).toContainEqual([stale, newer]);
  });
});
