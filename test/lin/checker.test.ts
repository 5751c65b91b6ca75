/** src/checkers/linearizable/linearizable.ts on hand-made histories: semantics, evidence, budgets. */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { callsFromJepsen } from "../../src/checkers/linearizable/lin-calls.js";
import { decodeKvCall, linOpsFromCalls } from "../../src/checkers/linearizable/lin-models.js";
import { checkLinearizable, linearizableVerdict } from "../../src/checkers/linearizable/linearizable.js";
import {
  type CasInput,
  type CasOutput,
  casRegisterModel,
} from "../../src/checkers/linearizable/models/cas-register.js";
import { kvWholeModel } from "../../src/checkers/linearizable/models/kv.js";
import type { LockInput, LockOutput } from "../../src/checkers/linearizable/models/lock-op.js";
import type { LinOp } from "../../src/checkers/linearizable/models/model.js";
import { mutexModel } from "../../src/checkers/linearizable/models/mutex.js";
import { parseJepsenEdn } from "../../src/formats/jepsen-edn.js";

const INF = Number.POSITIVE_INFINITY;
let nextRef = 0;
const lock = (process: number, f: "acquire" | "release", call: number, ret: number, lockName = "l") =>
  ({
    process,
    call,
    ret,
    input: { f, process, lock: lockName },
    output: ret === INF ? undefined : {},
    refs: ret === INF ? [nextRef++] : [nextRef++, nextRef++],
  }) satisfies LinOp<LockInput, LockOutput>;
const reg = (call: number, ret: number, input: CasInput, output: CasOutput | undefined) =>
  ({ process: 0, call, ret, input, output, refs: [call * 10, ret * 10] }) satisfies LinOp<
    CasInput,
    CasOutput
  >;

describe("checkLinearizable", () => {
  it("accepts a sequential legal history and rejects a sequential illegal one", () => {
    expect(checkLinearizable(mutexModel, [lock(1, "acquire", 0, 1), lock(1, "release", 2, 3)]).valid).toBe(
      true,
    );
    expect(checkLinearizable(mutexModel, [lock(1, "acquire", 0, 1), lock(2, "acquire", 2, 3)]).valid).toBe(
      false,
    );
  });

  it("reorders concurrent ops, and treats touching intervals as concurrent", () => {
    // release [0,2] and acquire [2,3] touch at 2: the acquire may go first.
    expect(checkLinearizable(mutexModel, [lock(1, "release", 0, 2), lock(2, "acquire", 2, 3)]).valid).toBe(
      true,
    );
    expect(checkLinearizable(mutexModel, [lock(1, "release", 0, 1), lock(2, "acquire", 2, 3)]).valid).toBe(
      false,
    );
  });

  it("lets an info op take effect at any later point, or never", () => {
    // The info acquire never happened: the later acquire is fine.
    expect(checkLinearizable(mutexModel, [lock(1, "acquire", 0, INF), lock(2, "acquire", 5, 6)]).valid).toBe(
      true,
    );
    // The info acquire took effect: that is what lets the release at [9, 10] be legal.
    expect(checkLinearizable(mutexModel, [lock(1, "acquire", 0, INF), lock(2, "release", 9, 10)]).valid).toBe(
      true,
    );
    // An info write may land long after its invoke: a read at 5 sees the old value, one at 20 the new.
    const w = reg(0, INF, { f: "write", value: 1 }, undefined);
    const early = reg(4, 5, { f: "read" }, { f: "read", value: null });
    const late = reg(19, 20, { f: "read" }, { f: "read", value: 1 });
    expect(checkLinearizable(casRegisterModel, [w, early, late]).valid).toBe(true);
    // ...but not before its invoke.
    const before = reg(0, 1, { f: "read" }, { f: "read", value: 1 });
    expect(checkLinearizable(casRegisterModel, [{ ...w, call: 2 }, before]).valid).toBe(false);
  });

  it("checks each lock on its own and names the failing one", () => {
    const r = checkLinearizable(mutexModel, [
      lock(1, "acquire", 0, 1, "a"),
      lock(2, "acquire", 2, 3, "b"),
      lock(3, "acquire", 4, 5, "b"),
    ]);
    expect(r.valid).toBe(false);
    expect(r.partitions).toBe(2);
    expect(r.failure?.partition).toBe('lock "b"');
  });

  it("reports the shortest failing prefix: the stuck op, the window and the longest linearization", () => {
    nextRef = 100;
    const ops = [
      lock(1, "acquire", 0, 1), // refs 100, 101
      lock(2, "acquire", 2, 4), // refs 102, 103: legal only after the release
      lock(3, "release", 3, 6), // refs 104, 105: overlaps the acquire above, so may go first
      lock(4, "acquire", 8, 9), // refs 106, 107: the lock is held by then
    ];
    const r = checkLinearizable(mutexModel, ops);
    // acquire(1), then release(3) may go before acquire(2): 1, 3, 2 is legal; then acquire(4) is stuck.
    expect(r.valid).toBe(false);
    expect(r.failure?.stuck).toBe(3);
    expect(r.failure?.partial).toEqual([0, 2, 1]);
    expect(r.failure?.window).toEqual([]);
    const v = linearizableVerdict(mutexModel, r);
    expect(v).toMatchObject({
      checker: "linearizable",
      valid: false,
      stats: { model: "mutex", ops: 4, partitions: 1, longestPartialLinearization: 3 },
    });
    expect(v.anomalies).toHaveLength(1);
    expect(v.anomalies[0]).toMatchObject({
      kind: "not-linearizable",
      ops: [106, 107],
      partialLinearization: [100, 104, 102],
    });
    // These ops carry no clock time, so the anomaly has none (positions are not nanoseconds).
    expect(v.anomalies[0]?.time).toBeUndefined();
    expect(v.anomalies[0]?.explanation).toContain("acquire → ok [process 4, index 106]");
    expect(v.anomalies[0]?.explanation).toContain("leaves the lock held");
  });

  it("lists the ops that could have gone first in the window", () => {
    const ops = [
      reg(0, 1, { f: "write", value: 1 }, { f: "write" }),
      reg(2, 6, { f: "write", value: 2 }, { f: "write" }), // concurrent with the read
      reg(3, 4, { f: "read" }, { f: "read", value: 3 }), // nobody wrote 3
    ];
    const r = checkLinearizable(casRegisterModel, ops);
    expect(r.valid).toBe(false);
    expect(r.failure?.stuck).toBe(2);
    expect(r.failure?.window).toEqual([1]);
    const v = linearizableVerdict(casRegisterModel, r);
    expect(v.anomalies[0]?.ops).toEqual([30, 40, 20, 60]);
    expect(v.anomalies[0]?.explanation).toContain("read → 3");
    expect(v.anomalies[0]?.explanation).toContain("write 2 → ok");
  });

  it("gives a valid verdict no anomalies", () => {
    const v = linearizableVerdict(mutexModel, checkLinearizable(mutexModel, [lock(1, "acquire", 0, 1)]));
    expect(v.valid).toBe(true);
    expect(v.anomalies).toEqual([]);
    expect(v.stats.statesExplored).toBe(1);
  });

  describe("budgets", () => {
    // Porcupine's kv c10-ok without partitioning takes a few hundred thousand configurations.
    const events = parseJepsenEdn(readFileSync("/work/shared/data/porcupine/kv/c10-ok.txt", "utf8"));
    const calls = events.ok ? callsFromJepsen(events.value) : undefined;
    const ops = calls?.ok ? linOpsFromCalls(calls.value, decodeKvCall) : undefined;
    const hard = ops?.ok ? ops.value : [];

    it("answers unknown when the time runs out", () => {
      expect(hard.length).toBeGreaterThan(300);
      const r = checkLinearizable(kvWholeModel(), hard, { timeLimitMs: 0 });
      expect(r.valid).toBe("unknown");
      expect(r.budget).toBe("time");
      expect(linearizableVerdict(kvWholeModel(), r).stats.budgetExhausted).toBe("time");
    });

    it("answers unknown when the memory budget is exceeded", () => {
      const r = checkLinearizable(kvWholeModel(), hard, { memoryLimitMb: 1 });
      expect(r.valid).toBe("unknown");
      expect(r.budget).toBe("memory");
    });
  });
});
