import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  type EdnMap,
  type EdnValue,
  ednGet,
  forEachEdnForm,
  isEdnMap,
  keywordName,
  parseEdn,
  parseEdnAll,
  untagged,
} from "../../src/formats/edn.js";

function read(text: string): EdnValue {
  const r = parseEdn(text);
  if (!r.ok) throw new Error(r.error);
  return r.value;
}

function readError(text: string): string {
  const r = parseEdn(text);
  if (r.ok) throw new Error(`expected an error for ${text}`);
  return r.error;
}

describe("parseEdn scalars", () => {
  it("reads nil, booleans, keywords and symbols as distinct kinds", () => {
    expect(read("nil")).toBeNull();
    expect(read("true")).toBe(true);
    expect(read("false")).toBe(false);
    expect(read(":invoke")).toEqual({ kw: "invoke" });
    expect(read(":jepsen.history/op")).toEqual({ kw: "jepsen.history/op" });
    expect(read("invoke")).toEqual({ sym: "invoke" });
    expect(read('"invoke"')).toBe("invoke");
    expect(read("nil?")).toEqual({ sym: "nil?" });
    expect(read("-")).toEqual({ sym: "-" });
    expect(read("+foo")).toEqual({ sym: "+foo" });
  });

  it("reads integers as numbers while safe and as BigInt beyond 2^53", () => {
    expect(read("42")).toBe(42);
    expect(read("-7")).toBe(-7);
    expect(read("+3")).toBe(3);
    expect(read("9007199254740991")).toBe(9007199254740991);
    expect(read("9007199254740993")).toBe(9007199254740993n);
    expect(read("-9223372036854775808")).toBe(-9223372036854775808n);
    expect(read("5N")).toBe(5n);
  });

  it("reads floats, decimals and ratios as numbers", () => {
    expect(read("1.5")).toBe(1.5);
    expect(read("-2.5e3")).toBe(-2500);
    expect(read("1E-2")).toBe(0.01);
    expect(read("3.25M")).toBe(3.25);
    expect(read("1/4")).toBe(0.25);
    expect(read("##Inf")).toBe(Number.POSITIVE_INFINITY);
  });

  it("decodes string escapes", () => {
    expect(read(String.raw`"a\"b\\c\nd\te\u0041"`)).toBe('a"b\\c\nd\teA');
    expect(read('"multi\nline"')).toBe("multi\nline");
  });

  it("reads character literals", () => {
    expect(read("\\a")).toEqual({ char: "a" });
    expect(read("\\newline")).toEqual({ char: "\n" });
    expect(read("\\u0042")).toEqual({ char: "B" });
    expect(read("[\\( \\)]")).toEqual([{ char: "(" }, { char: ")" }]);
  });
});

describe("parseEdn collections", () => {
  it("reads vectors, lists, sets and maps with entries in source order", () => {
    expect(read("[1 2 [3]]")).toEqual([1, 2, [3]]);
    expect(read("(1 :a)")).toEqual({ list: [1, { kw: "a" }] });
    expect(read("#{1 2}")).toEqual({ set: [1, 2] });
    expect(read('{:b 1, :a "x", 3 nil}')).toEqual({
      map: [
        [{ kw: "b" }, 1],
        [{ kw: "a" }, "x"],
        [3, null],
      ],
    });
    expect(read("[]")).toEqual([]);
    expect(read("{}")).toEqual({ map: [] });
  });

  it("treats commas as whitespace and skips comments and #_ discards", () => {
    expect(read("[1,2,,3] ; trailing comment")).toEqual([1, 2, 3]);
    expect(read("; leading\n[1 #_ 2 3 #_[4 5]]")).toEqual([1, 3]);
  });

  it("keeps tagged literals as { tag, value }", () => {
    expect(read('#inst "2017-01-01T00:00:00Z"')).toEqual({ tag: "inst", value: "2017-01-01T00:00:00Z" });
    const rec = read("#jepsen.history.Op{:index 0, :type :invoke}");
    expect(rec).toEqual({
      tag: "jepsen.history.Op",
      value: {
        map: [
          [{ kw: "index" }, 0],
          [{ kw: "type" }, { kw: "invoke" }],
        ],
      },
    });
    const unwrapped = untagged(rec);
    expect(isEdnMap(unwrapped) && keywordName(ednGet(unwrapped, "type"))).toBe("invoke");
  });

  it("looks keyword keys up in maps", () => {
    const m = read('{:type :ok, :value [1 2], "type" 3}') as EdnMap;
    expect(keywordName(ednGet(m, "type"))).toBe("ok");
    expect(ednGet(m, "value")).toEqual([1, 2]);
    expect(ednGet(m, "missing")).toBeUndefined();
  });
});

describe("parseEdn errors name the offset", () => {
  it("reports unclosed collections at the opener", () => {
    expect(readError("  [1 2")).toMatch(/offset 2 \(line 1, column 3\).*unclosed '\['/);
  });

  it("reports mismatched closers where they occur", () => {
    expect(readError("[1 2}")).toMatch(/offset 4.*expected '\]' but found '\}'/);
    expect(readError("]")).toMatch(/offset 0.*unexpected '\]'/);
  });

  it("reports line and column on later lines", () => {
    expect(readError('[1\n  "abc')).toMatch(/offset 5 \(line 2, column 3\).*unterminated string/);
  });

  it("rejects odd maps, bad escapes, malformed numbers and extra forms", () => {
    expect(readError("{:a}")).toMatch(/odd number/);
    expect(readError(String.raw`"\q"`)).toMatch(/unknown string escape/);
    expect(readError("12abc")).toMatch(/malformed number '12abc'/);
    expect(readError("1 2")).toMatch(/exactly one EDN form, found 2/);
    expect(readError("")).toMatch(/found 0/);
    expect(readError("#")).toMatch(/'#' must be followed/);
    expect(readError("#inst")).toMatch(/no value/);
  });
});

describe("parseEdnAll and forEachEdnForm", () => {
  it("reads one op map per line like Jepsen histories", () => {
    const text = "{:type :invoke, :f :read}\n{:type :ok, :f :read, :value 3}\n";
    const r = parseEdnAll(text);
    expect(r.ok && r.value.length).toBe(2);
    const seen: string[] = [];
    const n = forEachEdnForm(text, (form) => {
      if (isEdnMap(form)) seen.push(keywordName(ednGet(form, "type")) ?? "?");
    });
    expect(n).toEqual({ ok: true, value: 2 });
    expect(seen).toEqual(["invoke", "ok"]);
  });

  it("stops at the first error", () => {
    const seen: EdnValue[] = [];
    const r = forEachEdnForm("1 2 ) 3", (f) => seen.push(f));
    expect(r.ok).toBe(false);
    expect(seen).toEqual([1, 2]);
  });

  // Source: jepsen-io/knossos at 9b2c79e9, data/mutex/bad/etcd.edn (see /work/shared/data/README.md).
  it("reads Knossos's etcd mutex history (1,135 events in one vector)", () => {
    const text = readFileSync("/work/shared/data/knossos/mutex/bad/etcd.edn", "utf8");
    const r = parseEdn(text);
    expect(r.ok).toBe(true);
    const ops = r.ok ? (r.value as EdnValue[]) : [];
    expect(ops.length).toBe(1135);
    const first = ops[0] as EdnMap;
    expect(keywordName(ednGet(first, "f"))).toBe("release");
    expect(ednGet(first, "process")).toBe(1);
  });
});
