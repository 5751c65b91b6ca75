/**
 * Property tests of the safety checkers: never flag a correct fenced lock, always flag an
 * inserted stale write at the right index, and agree with the brute-force reference.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Checker } from "../../src/checkers/checker.js";
import { checkOps, SAFETY_CHECKERS } from "../../src/checkers/index.js";
import { createLivenessChecker } from "../../src/checkers/liveness.js";
import { createMutualExclusionChecker } from "../../src/checkers/mutual-exclusion.js";
import { createStaleWriteChecker } from "../../src/checkers/stale-write.js";
import { createTokenOrderChecker } from "../../src/checkers/token-order.js";
import type { Verdict } from "../../src/checkers/verdict.js";
import type { Op, WriteOp } from "../../src/history/op.js";
import { createHistoryValidator } from "../../src/history/validate.js";
import { chaosHistory, chaosHistoryWithSeq, fencedLockHistory } from "./arbitraries.js";
import {
  calls,
  type RefResult,
  refLeaseOverlapNs,
  refMutualExclusion,
  refStaleWrite,
  refTokenOrder,
} from "./reference.js";

function run(make: () => Checker, ops: readonly Op[]): Verdict {
  const c = make();
  for (const op of ops) c.step(op);
  return c.finish();
}

function expectValidHistory(ops: readonly Op[]): void {
  const v = createHistoryValidator();
  ops.forEach((op, i) => {
    v.check(op, i + 1);
  });
  expect(v.errors).toEqual([]);
}

/** Definite anomalies are reported at the offending op: ops[0]. */
function flaggedBy(v: Verdict): Set<number> {
  return v.valid === false ? new Set(v.anomalies.map((a) => a.ops[0]!)) : new Set();
}

function expectAgrees(v: Verdict, ref: RefResult): void {
  expect(v.valid).toBe(ref.valid);
  expect(flaggedBy(v)).toEqual(ref.flagged);
}

const hasUncertainWrite = (ops: readonly Op[]) =>
  calls(ops).some(
    (c) => c.invoke.f === "write" && (c.completion === undefined || c.completion.type === "info"),
  );

describe("correct fenced lock", () => {
  it("generates well-formed histories", () => {
    fc.assert(fc.property(fencedLockHistory, (ops) => expectValidHistory(ops)));
  });

  it("is never flagged by the safety checkers (valid, or unknown only with uncertain writes)", () => {
    fc.assert(
      fc.property(fencedLockHistory, (ops) => {
        for (const v of checkOps(ops, SAFETY_CHECKERS)) {
          expect(v.valid, v.checker).not.toBe(false);
          if (!hasUncertainWrite(ops)) expect(v.valid, v.checker).toBe(true);
        }
      }),
      { numRuns: 300 },
    );
  });

  it("an inserted stale accepted write is always flagged, at its index, against a newer accepted write", () => {
    // Pick an accepted write w_new, an older grant, and a place after w_new completed.
    const withInsertion = fencedLockHistory.chain((ops) => {
      const accepted = ops.filter(
        (o): o is WriteOp => o.f === "write" && o.type === "ok" && o.accepted === true,
      );
      const grants = ops.filter((o) => o.f === "acquire" && o.type === "ok") as Array<
        Op & { token: bigint; grant: string }
      >;
      const pairs = accepted.flatMap((w) => grants.filter((g) => g.token < w.token!).map((g) => ({ w, g })));
      if (pairs.length === 0) return fc.constant(undefined);
      return fc
        .record({ pair: fc.constantFrom(...pairs), at: fc.nat() })
        .map(({ pair, at }) => ({ ops, ...pair, at: pair.w.index + 1 + (at % (ops.length - pair.w.index)) }));
    });
    let inserted = 0;
    fc.assert(
      fc.property(withInsertion, (c) => {
        if (!c) return;
        inserted++;
        const time = c.ops[c.at - 1]!.time;
        const fields = { process: 99, f: "write", lock: "L", grant: c.g.grant, token: c.g.token, time };
        const stale = [
          { ...fields, type: "invoke" },
          { ...fields, type: "ok", accepted: true },
        ] as unknown as Op[];
        const ops = [...c.ops.slice(0, c.at), ...stale, ...c.ops.slice(c.at)].map((op, index) => ({
          ...op,
          index,
        }));
        expectValidHistory(ops);
        const v = run(createStaleWriteChecker, ops);
        expect(v.valid).toBe(false);
        expect(flaggedBy(v)).toEqual(new Set([c.at + 1]));
        const anomaly = v.anomalies[0]!;
        const newer = ops[anomaly.ops[1]!] as WriteOp;
        expect(newer.f === "write" && newer.type === "ok" && newer.accepted).toBe(true);
        expect(newer.token! > c.g.token).toBe(true);
        expect(newer.index).toBeLessThan(c.at);
        expect(anomaly.ops).toContain(c.g.index);
      }),
      { numRuns: 300 },
    );
    expect(inserted).toBeGreaterThan(50);
  });
});

describe("agreement with the brute-force reference on random histories", () => {
  it("generates well-formed histories", () => {
    fc.assert(fc.property(chaosHistory, (ops) => expectValidHistory(ops)));
  });

  it("stale-write", () => {
    fc.assert(
      fc.property(chaosHistory, (ops) => expectAgrees(run(createStaleWriteChecker, ops), refStaleWrite(ops))),
      { numRuns: 1000 },
    );
  });

  it("mutual-exclusion", () => {
    fc.assert(
      fc.property(chaosHistory, (ops) =>
        expectAgrees(run(createMutualExclusionChecker, ops), refMutualExclusion(ops)),
      ),
      { numRuns: 1000 },
    );
  });

  it("token-order", () => {
    fc.assert(
      fc.property(chaosHistory, (ops) => expectAgrees(run(createTokenOrderChecker, ops), refTokenOrder(ops))),
      { numRuns: 1000 },
    );
  });

  it("liveness lease overlap", () => {
    fc.assert(
      fc.property(chaosHistory, (ops) => {
        const v = run(createLivenessChecker, ops);
        expect(v.valid).toBe(true);
        expect(v.stats.leaseOverlapMs).toBeCloseTo(refLeaseOverlapNs(ops) / 1e6, 6);
      }),
      { numRuns: 500 },
    );
  });

  it("stale-write, with the resource's apply order (seq)", () => {
    fc.assert(
      fc.property(chaosHistoryWithSeq, (ops) =>
        expectAgrees(run(createStaleWriteChecker, ops), refStaleWrite(ops)),
      ),
      { numRuns: 1000 },
    );
  });

  it("mutual-exclusion, with the resource's apply order (seq)", () => {
    fc.assert(
      fc.property(chaosHistoryWithSeq, (ops) =>
        expectAgrees(run(createMutualExclusionChecker, ops), refMutualExclusion(ops)),
      ),
      { numRuns: 1000 },
    );
  });

  it("histories with seq exercise every verdict, and seq changes some verdicts", () => {
    const seen = new Set<string>();
    let changed = 0;
    fc.assert(
      fc.property(chaosHistoryWithSeq, (ops) => {
        const withSeq = checkOps(ops, ["stale-write", "mutual-exclusion"]);
        const without = checkOps(
          ops.map((op) => {
            const { seq: _seq, ...rest } = op as WriteOp;
            return rest as Op;
          }),
          ["stale-write", "mutual-exclusion"],
        );
        for (const [i, v] of withSeq.entries()) {
          seen.add(`${v.checker}=${v.valid}`);
          if (v.valid !== without[i]!.valid) changed++;
        }
      }),
      { numRuns: 500, seed: 1 },
    );
    for (const c of ["stale-write", "mutual-exclusion"]) {
      for (const v of ["true", "false", "unknown"]) expect(seen).toContain(`${c}=${v}`);
    }
    expect(changed).toBeGreaterThan(10);
  });

  it("the random histories exercise every verdict", () => {
    const seen = new Set<string>();
    fc.assert(
      fc.property(chaosHistory, (ops) => {
        for (const v of checkOps(ops, SAFETY_CHECKERS)) seen.add(`${v.checker}=${v.valid}`);
      }),
      { numRuns: 500, seed: 1 },
    );
    for (const c of SAFETY_CHECKERS) {
      expect(seen).toContain(`${c}=true`);
      expect(seen).toContain(`${c}=false`);
    }
    expect(seen).toContain("stale-write=unknown");
    expect(seen).toContain("mutual-exclusion=unknown");
  });
});
