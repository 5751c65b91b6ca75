/**
 * Verdicts on the histories other linearizability checkers are judged by, pinned to what those
 * checkers say. Data: /work/shared/data (see its README.md), kept unchanged:
 * - Knossos (jepsen-io/knossos @ 9b2c79e9, EPL): data/mutex/bad/etcd.edn, a real Jepsen
 *   history of etcd locks, not linearizable for Knossos's `mutex`; data/cas-register/good and
 *   bad: linearizable / not for Knossos's `cas-register`.
 * - Porcupine (anishathalye/porcupine @ 55508eb2, MIT): test_data/jepsen/etcd_*.log, of which
 *   Porcupine's porcupine_test.go expects 23 linearizable and the rest not; test_data/kv/*.txt,
 *   "ok" linearizable and "bad" not (Porcupine's kv tests).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadPorcupineEtcdLogs, PORCUPINE_ETCD_LINEARIZABLE } from "../../bench/porcupine-etcd.js";
import { callsFromJepsen } from "../../src/checkers/linearizable/lin-calls.js";
import {
  checkCallsLinearizable,
  decodeKvCall,
  type LinModelName,
  linOpsFromCalls,
} from "../../src/checkers/linearizable/lin-models.js";
import { checkLinearizable } from "../../src/checkers/linearizable/linearizable.js";
import { casRegisterModel } from "../../src/checkers/linearizable/models/cas-register.js";
import { kvModel, kvWholeModel } from "../../src/checkers/linearizable/models/kv.js";
import type { LinOp } from "../../src/checkers/linearizable/models/model.js";
import { parseJepsenEtcdLog } from "../../src/checkers/linearizable/porcupine.js";
import type { Verdict } from "../../src/checkers/verdict.js";
import { parseJepsenEdn } from "../../src/formats/jepsen-edn.js";

const DATA = "/work/shared/data";

function checkEdn(path: string, model: LinModelName): Verdict {
  const events = parseJepsenEdn(readFileSync(path, "utf8"));
  if (!events.ok) throw new Error(JSON.stringify(events.error));
  const calls = callsFromJepsen(events.value);
  if (!calls.ok) throw new Error(JSON.stringify(calls.error));
  const v = checkCallsLinearizable(model, calls.value);
  if (!v.ok) throw new Error(JSON.stringify(v.error));
  return v.value;
}

function kvOps(name: string) {
  const events = parseJepsenEdn(readFileSync(join(DATA, "porcupine/kv", `${name}.txt`), "utf8"));
  if (!events.ok) throw new Error(JSON.stringify(events.error));
  const calls = callsFromJepsen(events.value);
  if (!calls.ok) throw new Error(JSON.stringify(calls.error));
  const ops = linOpsFromCalls(calls.value, decodeKvCall);
  if (!ops.ok) throw new Error(JSON.stringify(ops.error));
  return ops.value;
}

describe("Knossos corpus", () => {
  it("mutex/bad/etcd.edn is not linearizable for the mutex model, with evidence", () => {
    const v = checkEdn(join(DATA, "knossos/mutex/bad/etcd.edn"), "mutex");
    expect(v.valid).toBe(false);
    const a = v.anomalies[0];
    expect(a?.kind).toBe("not-linearizable");
    // The stuck op's invoke and completion come first; both are acquire/release events of the file.
    expect(a?.ops.length).toBeGreaterThanOrEqual(2);
    expect(a?.partialLinearization?.length).toBe(v.stats.longestPartialLinearization);
    expect(v.stats.longestPartialLinearization).toBeGreaterThan(100);
    expect(a?.explanation).toMatch(/not linearizable for the mutex model/);
  });

  it("mutex/bad/etcd.edn is not linearizable for the owner-aware and fenced mutexes either", () => {
    expect(checkEdn(join(DATA, "knossos/mutex/bad/etcd.edn"), "owner-mutex").valid).toBe(false);
    expect(checkEdn(join(DATA, "knossos/mutex/bad/etcd.edn"), "fenced-mutex").valid).toBe(false);
  });

  for (const [set, expected] of [
    ["good", true],
    ["bad", false],
  ] as const) {
    const dir = join(DATA, "knossos/cas-register", set);
    const files = readdirSync(dir).filter((f) => f.endsWith(".edn"));
    it(`cas-register/${set}: all ${files.length} histories ${expected ? "linearizable" : "not linearizable"}`, () => {
      expect(files.length).toBeGreaterThan(set === "good" ? 100 : 5);
      const wrong = files.filter((f) => checkEdn(join(dir, f), "cas-register").valid !== expected);
      expect(wrong).toEqual([]);
    });
  }
});

describe("Porcupine corpus", () => {
  it("etcd Jepsen logs: the same verdict as Porcupine on all 102 non-empty histories", () => {
    const logs = loadPorcupineEtcdLogs(DATA);
    expect(logs).toHaveLength(102);
    const verdicts: Record<number, boolean | "unknown"> = {};
    const expected: Record<number, boolean> = {};
    for (const { i, ops } of logs) {
      expect(ops.length).toBeGreaterThan(0);
      verdicts[i] = checkLinearizable(casRegisterModel, ops as LinOp<never, never>[]).valid;
      expected[i] = PORCUPINE_ETCD_LINEARIZABLE.has(i);
    }
    expect(verdicts).toEqual(expected);
  });

  it("etcd_095.log is empty, and an empty history is linearizable", () => {
    const ops = parseJepsenEtcdLog(readFileSync(join(DATA, "porcupine/jepsen/etcd_095.log"), "utf8"));
    expect(ops).toEqual({ ok: true, value: [] });
    expect(checkLinearizable(casRegisterModel, []).valid).toBe(true);
  });

  for (const clients of ["c01", "c10", "c50"]) {
    it(`kv ${clients}: ok is linearizable and bad is not, checked key by key`, () => {
      const ok = checkLinearizable(kvModel(), kvOps(`${clients}-ok`));
      const bad = checkLinearizable(kvModel(), kvOps(`${clients}-bad`));
      expect([ok.valid, bad.valid]).toEqual([true, false]);
      expect(ok.partitions).toBeGreaterThan(1);
      expect(bad.failure?.partition).toMatch(/^key "/);
    });
  }

  it("kv c01 without partitioning: the same verdicts", () => {
    expect(checkLinearizable(kvWholeModel(), kvOps("c01-ok")).valid).toBe(true);
    expect(checkLinearizable(kvWholeModel(), kvOps("c01-bad")).valid).toBe(false);
  });
});
