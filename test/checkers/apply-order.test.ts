/**
 * The resource's own apply order (`seq` on accepted write completions) makes stale-write and
 * mutual-exclusion exact where client-observed times overlap; without it, today's rules hold.
 */
import { describe, expect, it } from "vitest";
import type { Checker } from "../../src/checkers/checker.js";
import { createMutualExclusionChecker } from "../../src/checkers/mutual-exclusion.js";
import { createStaleWriteChecker } from "../../src/checkers/stale-write.js";
import type { Verdict } from "../../src/checkers/verdict.js";
import type { Op, WriteOp } from "../../src/history/op.js";
import { build } from "./build.js";

function run(make: () => Checker, ops: readonly Op[]): Verdict {
  const c = make();
  for (const op of ops) c.step(op);
  return c.finish();
}

const withSeq = (ops: Op[], seqs: Record<number, bigint>): Op[] =>
  ops.map((op) => (seqs[op.index] === undefined ? op : ({ ...op, seq: seqs[op.index] } as WriteOp)));

/**
 * Client 1's lease ran out and client 2 holds the lock (token 2). Client 2's write is sent at
 * 50 ms and its reply comes at 55 ms; client 1's stale write (token 1) is sent at 52 ms, before
 * that reply, and answered at 56 ms: in real time the two overlap.
 */
function overlappingStaleWrite() {
  const h = build();
  h.acquire(0, 1);
  const acq1 = h.granted(1, 1, "1:0", 1n);
  h.acquire(40, 2);
  const acq2 = h.granted(41, 2, "2:0", 2n);
  h.write(50, 2, "2:0", 2n);
  h.write(52, 1, "1:0", 1n);
  const newer = h.wrote(55, 2, "2:0", true, 2n);
  const stale = h.wrote(56, 1, "1:0", true, 1n);
  return { ops: h.ops, acq1, acq2, newer, stale };
}

describe("stale-write with the resource's apply order", () => {
  it("without seq, overlapping writes are not flagged (today's rule)", () => {
    expect(run(createStaleWriteChecker, overlappingStaleWrite().ops).valid).toBe(true);
  });

  it("the stale write applied after the newer one is a certain violation, though the calls overlapped", () => {
    const s = overlappingStaleWrite();
    const v = run(createStaleWriteChecker, withSeq(s.ops, { [s.newer]: 7n, [s.stale]: 8n }));
    expect(v.valid).toBe(false);
    expect(v.anomalies).toHaveLength(1);
    expect(v.anomalies[0]!.kind).toBe("stale-write");
    expect(v.anomalies[0]!.ops).toEqual([s.stale, s.newer, s.acq1, s.acq2]);
    expect(v.anomalies[0]!.explanation).toContain("its write #8, after write #7");
    expect(v.anomalies[0]!.explanation).toContain("only the resource's order shows");
  });

  it("the stale write applied before the newer one is no violation", () => {
    const s = overlappingStaleWrite();
    const v = run(createStaleWriteChecker, withSeq(s.ops, { [s.newer]: 8n, [s.stale]: 7n }));
    expect(v.valid).toBe(true);
  });

  it("seqs beyond 2^53 compare exactly", () => {
    const s = overlappingStaleWrite();
    const big = 2n ** 60n;
    const v = run(createStaleWriteChecker, withSeq(s.ops, { [s.newer]: big, [s.stale]: big + 1n }));
    expect(v.valid).toBe(false);
  });
});

/**
 * Client 1 (grant 1:0) writes (a), then client 2 (grant 2:0) and client 1 write concurrently
 * (b and c overlap in real time).
 */
function overlappingInterleave() {
  const h = build();
  h.acquire(0, 1);
  h.granted(1, 1, "1:0");
  h.write(2, 1, "1:0");
  const a = h.wrote(3, 1, "1:0", true);
  h.acquire(10, 2);
  h.granted(11, 2, "2:0");
  h.write(20, 2, "2:0");
  h.write(21, 1, "1:0");
  const b = h.wrote(25, 2, "2:0", true);
  const c = h.wrote(26, 1, "1:0", true);
  return { ops: h.ops, a, b, c };
}

describe("mutual-exclusion with the resource's apply order", () => {
  it("without seq, the overlapping b and c are not flagged", () => {
    expect(run(createMutualExclusionChecker, overlappingInterleave().ops).valid).toBe(true);
  });

  it("a, b, c applied in that order is a certain interleaving", () => {
    const s = overlappingInterleave();
    const v = run(createMutualExclusionChecker, withSeq(s.ops, { [s.a]: 1n, [s.b]: 2n, [s.c]: 3n }));
    expect(v.valid).toBe(false);
    expect(v.anomalies[0]!.ops).toEqual([s.c, s.b, s.a]);
  });

  it("c applied before b keeps each holder's writes together: no violation", () => {
    const s = overlappingInterleave();
    const v = run(createMutualExclusionChecker, withSeq(s.ops, { [s.a]: 1n, [s.b]: 3n, [s.c]: 2n }));
    expect(v.valid).toBe(true);
  });

  it("a lock where some accepted write lacks seq keeps the real-time rule", () => {
    const s = overlappingInterleave();
    const v = run(createMutualExclusionChecker, withSeq(s.ops, { [s.b]: 2n, [s.c]: 3n }));
    expect(v.valid).toBe(true);
  });
});
