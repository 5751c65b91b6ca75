import { readdirSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { checkOps } from "../../src/checkers/index.js";
import { jepsenToOps, opToJepsenEdn } from "../../src/formats/jepsen.js";
import { parseJepsenEdn } from "../../src/formats/jepsen-edn.js";
import type { Op } from "../../src/history/op.js";
import { readHistoryFile } from "../../src/history/read.js";
import { chaosHistory, chaosHistoryWithSeq } from "../checkers/arbitraries.js";

function importText(text: string) {
  const events = parseJepsenEdn(text);
  if (!events.ok) throw new Error(events.error.message);
  return jepsenToOps(events.value, "history.edn");
}

const exportAll = (ops: readonly Op[]) => ops.map((op) => `${opToJepsenEdn(op)}\n`).join("");

describe("Jepsen history.edn", () => {
  it("export then import gives back the same ops", () => {
    fc.assert(
      fc.property(fc.oneof(chaosHistory, chaosHistoryWithSeq), (ops) => {
        expect(importText(exportAll(ops))).toEqual({ ok: true, value: { ops, warnings: [] } });
      }),
      { numRuns: 200 },
    );
  });

  it("round-trips every corpus history, values included", async () => {
    const root = join(import.meta.dirname, "../../histories");
    for (const name of readdirSync(root)) {
      const read = await readHistoryFile(join(root, name, "history.jsonl"));
      if (!read.ok) throw new Error(name);
      const back = importText(exportAll(read.value.ops));
      expect(back.ok && back.value.ops, name).toEqual(read.value.ops);
    }
  });

  it("writes a Jepsen op map per line", () => {
    const line = opToJepsenEdn({
      index: 4,
      time: 12,
      process: 1,
      type: "ok",
      f: "acquire",
      lock: "L",
      grant: "1:0",
      token: 2n ** 64n,
    });
    expect(line).toBe(
      '{:index 4, :time 12, :type :ok, :process 1, :f :acquire, :value nil, :lock "L", :grant "1:0", :token 18446744073709551616}',
    );
    expect(
      opToJepsenEdn({
        index: 0,
        time: 0,
        process: "nemesis",
        type: "info",
        f: "pause",
        value: { ms: 5, "a b": [1] },
      }),
    ).toBe('{:index 0, :time 0, :type :info, :process :nemesis, :f :pause, :value {:ms 5, "a b" [1]}}');
  });

  it("imports a plain Jepsen mutex history: tokens from :value, grants per process, other ops dropped", () => {
    const text = `
{:index 0, :time 0, :type :invoke, :process 0, :f :acquire, :value nil}
{:index 1, :time 10, :type :ok, :process 0, :f :acquire, :value 33}
{:index 2, :time 20, :type :invoke, :process :nemesis, :f :start, :value nil}
{:index 3, :time 21, :type :info, :process :nemesis, :f :start, :value [:n1 :n2]}
{:index 4, :time 30, :type :invoke, :process 1, :f :acquire, :value nil}
{:index 5, :time 40, :type :ok, :process 1, :f :acquire, :value 34}
{:index 6, :time 50, :type :invoke, :process 1, :f :write, :value 7}
{:index 7, :time 60, :type :ok, :process 1, :f :write, :value 7}
{:index 8, :time 61, :type :invoke, :process 2, :f :read, :value nil}
{:index 9, :time 62, :type :ok, :process 2, :f :read, :value 7}
{:index 10, :time 70, :type :invoke, :process 0, :f :write, :value 8}
{:index 11, :time 80, :type :ok, :process 0, :f :write, :value 8}
`;
    const r = importText(text);
    if (!r.ok) throw new Error(JSON.stringify(r.error));
    const { ops, warnings } = r.value;
    expect(ops.map((o) => o.index)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 10, 11]);
    expect(ops[1]).toMatchObject({ f: "acquire", lock: "lock", grant: "0:0", token: 33n });
    expect(ops[3]).toMatchObject({ process: "nemesis", f: "partition", value: ["n1", "n2"] });
    expect(ops[9]).toMatchObject({ f: "write", grant: "0:0", token: 33n, value: 8 });
    expect(warnings.map((w) => w.message)).toContainEqual(expect.stringContaining("2 ops with :read"));
    const stale = checkOps(ops, ["stale-write"])[0]!;
    expect(stale.valid).toBe(false);
    expect(stale.anomalies[0]!.ops.slice(0, 2)).toEqual([11, 7]);
  });

  it("reports a malformed Jepsen history by op position", () => {
    const r = importText("{:type :invoke, :process 0, :f :acquire}\n{:type :ok, :process 1, :f :acquire}\n");
    expect(r.ok).toBe(false);
    if (!r.ok)
      expect(r.error[0]).toMatchObject({
        file: "history.edn",
        line: 2,
        message: expect.stringContaining("without invoke"),
      });
  });
});
