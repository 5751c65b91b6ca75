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

/**
 * The delayed packet: client 1 holds the lock and writes at 30 ms; the write is delayed in the
 * network, client 1 gives up on it at 130 ms (timeout: `info`) and releases. Client 2 acquires,
 * writes at 200 ms and is answered at 205 ms. Client 1's write reaches the resource at 900 ms
 * and is applied after client 2's. Client-observed, client 1's write was sent before client 2's
 * was answered, so only the resource's log shows what happened.
 */
function delayedPacket() {
  const h = build();
  h.acquire(0, 1);
  h.granted(1, 1, "1:0");
  h.write(30, 1, "1:0");
  h.acquire(100, 2);
  const late = h.writeInfo(130, 1, "1:0");
  h.release(131, 1, "1:0");
  h.released(133, 1, "1:0");
  h.granted(140, 2, "2:0");
  h.write(200, 2, "2:0");
  const newer = h.wrote(205, 2, "2:0", true);
  return { ops: h.ops, late, newer };
}

describe("a write its client gave up on, applied all the same (info with seq)", () => {
  it("without the resource's log: no violation can be seen", () => {
    const s = delayedPacket();
    expect(run(createStaleWriteChecker, s.ops).valid).toBe(true);
    expect(run(createStaleWriteChecker, withSeq(s.ops, { [s.newer]: 1n })).valid).toBe(true);
  });

  it("applied after the newer holder's write: a certain stale write", () => {
    const s = delayedPacket();
    const v = run(createStaleWriteChecker, withSeq(s.ops, { [s.newer]: 1n, [s.late]: 2n }));
    expect(v.valid).toBe(false);
    expect(v.anomalies.map((a) => a.kind)).toEqual(["stale-write"]);
    expect(v.anomalies[0]!.ops.slice(0, 2)).toEqual([s.late, s.newer]);
    expect(v.anomalies[0]!.explanation).toContain("its write #2, after write #1");
    expect(v.anomalies[0]!.explanation).toContain("gave up on it at 130");
    expect(v.stats?.acceptedWrites).toBe(2);
  });

  it("applied before it: no violation", () => {
    const s = delayedPacket();
    expect(run(createStaleWriteChecker, withSeq(s.ops, { [s.newer]: 2n, [s.late]: 1n })).valid).toBe(true);
  });

  it("invoked after a newer write without seq completed: certain in real time, no longer unknown", () => {
    const h = build();
    h.acquire(0, 1);
    h.granted(1, 1, "1:0");
    h.acquire(2, 2);
    h.granted(3, 2, "2:0");
    h.write(10, 2, "2:0");
    h.wrote(12, 2, "2:0", true);
    h.write(20, 1, "1:0");
    const late = h.writeInfo(120, 1, "1:0");
    expect(run(createStaleWriteChecker, h.ops).valid).toBe("unknown");
    const v = run(createStaleWriteChecker, withSeq(h.ops, { [late]: 5n }));
    expect(v.valid).toBe(false);
    expect(v.anomalies[0]!.explanation).toContain("whose client gave up on it");
  });

  it("mutual-exclusion: an applied info write is a certain c", () => {
    const h = build();
    h.acquire(0, 1);
    h.granted(1, 1, "1:0");
    h.write(2, 1, "1:0");
    h.wrote(3, 1, "1:0", true);
    h.acquire(4, 2);
    h.granted(5, 2, "2:0");
    h.write(6, 2, "2:0");
    h.wrote(7, 2, "2:0", true);
    h.write(8, 1, "1:0");
    const c = h.writeInfo(108, 1, "1:0");
    expect(run(createMutualExclusionChecker, h.ops).valid).toBe("unknown");
    const v = run(createMutualExclusionChecker, withSeq(h.ops, { [c]: 9n }));
    expect(v.valid).toBe(false);
    expect(v.anomalies[0]!.explanation).toContain("the resource's log has it");
  });
});
