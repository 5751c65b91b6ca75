/**
 * The byte scanner (src/history/scan.ts) is a fast path in front of JSON.parse: wherever it
 * accepts a line, it must read exactly what parse.ts reads, and it must accept the lines
 * lockcheck writes (or it is no fast path). The reader's two paths — `visit` (scanner first)
 * and `batches()` (JSON.parse only) — must see the same ops, errors, warnings and line numbers.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { emptyOpFacts, factsOf, type OpFacts } from "../../src/history/facts.js";
import { CLIENT_FS, NEMESIS_FS, OP_TYPES, type Op } from "../../src/history/op.js";
import { parseOpLineInto } from "../../src/history/parse.js";
import { readHistory } from "../../src/history/read.js";
import { createScanMemory, type ScanMemory, scanOpLine } from "../../src/history/scan.js";
import { serializeOp } from "../../src/history/serialize.js";
import { chaosHistory } from "../checkers/arbitraries.js";
import { testTempDir } from "../temp-dir.js";

const dir = testTempDir("lockcheck-scan-");

/** The fields of OpFacts that the reader hands on (everything but `op`). */
function fields(f: OpFacts) {
  const { op: _op, ...rest } = f;
  return { ...rest };
}

function scan(line: string, memory: ScanMemory = createScanMemory()): OpFacts | undefined {
  const bytes = Buffer.from(line, "utf8");
  const facts = emptyOpFacts();
  return scanOpLine(bytes, 0, bytes.length, facts, memory) ? facts : undefined;
}

function parse(line: string): OpFacts | undefined {
  const facts = emptyOpFacts();
  return parseOpLineInto(line, 1, "f.jsonl", facts) === undefined ? facts : undefined;
}

/** Plain text of the kind lockcheck writes: no quotes, backslashes or control characters. */
const plain = fc.stringMatching(/^[A-Za-z0-9:_/.-]{1,12}$/);
/** Longer text, as error messages are. */
const sentence = fc.stringMatching(/^[A-Za-z0-9 :_/.,-]{0,80}$/);
const tokenArb = fc.oneof(
  fc.bigInt({ min: 0n, max: 1000n }),
  fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }),
);
const canonicalClientOp = fc.record(
  {
    index: fc.nat(),
    time: fc.maxSafeNat(),
    type: fc.constantFrom(...OP_TYPES),
    process: fc.nat(50),
    f: fc.constantFrom(...CLIENT_FS),
    lock: plain,
    grant: plain,
    token: tokenArb,
    value: fc.oneof(fc.integer(), plain, fc.boolean()),
    error: sentence,
  },
  { requiredKeys: ["index", "time", "type", "process", "f", "lock", "grant"] },
);
const canonicalNemesisOp = fc.record(
  {
    index: fc.nat(),
    time: fc.nat(),
    type: fc.constantFrom(...OP_TYPES),
    process: fc.constant("nemesis" as const),
    f: fc.constantFrom(...NEMESIS_FS),
    node: plain,
    error: plain,
  },
  { requiredKeys: ["index", "time", "type", "process", "f"] },
);
/** Ops as lockcheck's simulator and real runs write them. */
const canonicalOp: fc.Arbitrary<Op> = fc.oneof(
  canonicalClientOp.chain((o) =>
    o.f === "acquire"
      ? fc
          .option(fc.nat({ max: 100_000 }), { nil: undefined })
          .map((ttlMs) => (ttlMs === undefined ? o : { ...o, ttlMs }))
      : o.f === "write"
        ? fc
            .record({
              accepted: fc.option(fc.boolean(), { nil: undefined }),
              seq: fc.option(
                fc.oneof(fc.bigInt({ min: 0n, max: 1000n }), fc.bigInt({ min: 0n, max: 2n ** 64n })),
                {
                  nil: undefined,
                },
              ),
            })
            .map(({ accepted, seq }) => ({
              ...o,
              accepted,
              ...(seq !== undefined && o.type !== "invoke" && { seq }),
            }))
        : fc.constant(o),
  ),
  canonicalNemesisOp,
) as fc.Arbitrary<Op>;

/** Any op the model allows, including text that needs escapes and nested values. */
const anyOp: fc.Arbitrary<Op> = fc.oneof(
  canonicalOp,
  fc.record({
    index: fc.nat(),
    time: fc.nat(),
    type: fc.constantFrom(...OP_TYPES),
    process: fc.nat(5),
    f: fc.constantFrom(...CLIENT_FS),
    lock: fc.string({ minLength: 1, unit: "binary" }),
    grant: fc.string({ unit: "binary" }),
    value: fc.jsonValue(),
  }) as fc.Arbitrary<Op>,
);

/** Bytes that matter to a JSON scanner, to splice into valid lines. */
const tricky = fc.constantFrom(
  "{",
  "}",
  "[",
  "]",
  '"',
  "\\",
  ",",
  ":",
  " ",
  "\t",
  "0",
  "01",
  "-",
  "-0",
  ".5",
  "e3",
  "1234567890123456",
  "true",
  "nul",
  "null",
  '"nemesis"',
  '"index":1',
  '"f":"write"',
  "é",
  "\u2028",
  "\u0000",
  "\uFEFF",
);

const mutatedLine = fc.oneof(
  fc
    .tuple(canonicalOp, fc.nat(), fc.nat(3), fc.oneof(tricky, fc.string({ maxLength: 3 })))
    .map(([op, at, cut, insert]) => {
      const line = serializeOp(op);
      const i = at % (line.length + 1);
      return line.slice(0, i) + insert + line.slice(i + cut);
    }),
  fc
    .tuple(
      canonicalOp,
      fc.constantFrom(
        "index",
        "time",
        "process",
        "type",
        "f",
        "lock",
        "grant",
        "token",
        "accepted",
        "node",
        "value",
        "error",
        "ttlMs",
        "extra",
      ),
      fc.jsonValue(),
    )
    .map(([op, key, value]) => {
      const o = JSON.parse(serializeOp(op)) as Record<string, unknown>;
      o[key] = value;
      return JSON.stringify(o);
    }),
  fc.tuple(canonicalOp, fc.constantFrom("index", "f", "lock", "token", "ttlMs")).map(([op, key]) => {
    // A key given twice: JSON.parse keeps the last one.
    const line = serializeOp(op);
    const value = key === "index" || key === "ttlMs" ? 7 : key === "token" ? '"9"' : '"acquire"';
    return `${line.slice(0, -1)},"${key}":${value}}`;
  }),
  anyOp.map(serializeOp),
  fc.string({ maxLength: 40 }),
);

describe("scanOpLine", () => {
  it("reads every line lockcheck writes, exactly as the JSON.parse path does", () => {
    fc.assert(
      fc.property(canonicalOp, (op) => {
        const line = serializeOp(op);
        const scanned = scan(line);
        const parsed = parse(line);
        expect(parsed).toBeDefined();
        expect(scanned).toBeDefined();
        expect(fields(scanned!)).toEqual(fields(parsed!));
        expect(scanned!.op).toBeUndefined();
      }),
      { numRuns: 3000 },
    );
  });

  it("wherever it accepts a line, reads what the JSON.parse path reads; it never throws", () => {
    let accepted = 0;
    let declined = 0;
    fc.assert(
      fc.property(mutatedLine, (line) => {
        const scanned = scan(line);
        if (scanned === undefined) {
          declined++;
          return;
        }
        accepted++;
        const parsed = parse(line);
        expect(parsed, line).toBeDefined();
        expect(fields(scanned), line).toEqual(fields(parsed!));
      }),
      { numRuns: 10_000 },
    );
    // Both sides of the contract were exercised.
    expect(accepted).toBeGreaterThan(500);
    expect(declined).toBeGreaterThan(500);
  });

  it("declines what it leaves to JSON.parse", () => {
    const good = '{"index":1,"time":2,"process":0,"type":"invoke","f":"acquire","lock":"L"}';
    expect(scan(good)).toBeDefined();
    for (const line of [
      '{"index":1, "time":2,"process":0,"type":"invoke","f":"acquire","lock":"L"}', // whitespace
      '{"index":1,"time":2,"process":0,"type":"invoke","f":"acquire","lock":"L\\u0041"}', // escape
      '{"index":1,"time":2,"process":0,"type":"invoke","f":"acquire","lock":"Lé"}', // non-ASCII
      '{"index":01,"time":2,"process":0,"type":"invoke","f":"acquire","lock":"L"}', // leading zero
      '{"index":1,"time":2,"process":0,"type":"invoke","f":"acquire","lock":"L","index":3}', // duplicate
      '{"index":1,"time":2,"process":0,"type":"invoke","f":"acquire","lock":"L","value":{"a":1}}', // nested
      '{"index":1,"time":9007199254740993,"process":0,"type":"invoke","f":"acquire","lock":"L"}', // > 2^53
      '{"index":1,"time":2,"process":0,"type":"invoke","f":"acquire","lock":"L","x":1}', // unknown key
      '{"index":1,"time":2,"process":0,"type":"invoke","f":"acquire","lock":""}', // empty lock
      '{"index":1,"time":2,"process":0,"type":"invoke","f":"write","lock":"L"}', // write without grant
      '{"index":1,"time":2,"process":0,"type":"ok","f":"acquire","lock":"L","accepted":true}',
      '{"index":1,"time":2,"process":0,"type":"ok","f":"acquire","lock":"L","token":"1.5"}',
      '{"index":1,"time":2,"process":"nemesis","type":"info","f":"acquire"}',
      '{"index":-1,"time":2,"process":0,"type":"invoke","f":"acquire","lock":"L"}',
      '{"index":1,"time":2,"process":0,"type":"invoke","f":"acquire","lock":"L"} ',
    ]) {
      expect(scan(line), line).toBeUndefined();
    }
  });

  it("reuses a process's token and grant from line to line and still reads changes", () => {
    const memory = createScanMemory();
    const line = (grant: string, token: string) =>
      `{"index":1,"time":2,"process":3,"type":"invoke","f":"write","lock":"L","grant":"${grant}","token":${token}}`;
    expect(scan(line("3:0", '"1180591620717411303424"'), memory)?.token).toBe(2n ** 70n);
    expect(scan(line("3:0", '"1180591620717411303424"'), memory)?.token).toBe(2n ** 70n);
    const next = scan(line("3:1", "12"), memory);
    expect(next?.token).toBe(12n);
    expect(next?.grant).toBe("3:1");
    expect(scan(line("3:1", '"12"'), memory)?.token).toBe(12n);
  });
});

describe("readHistory: the scanning path (visit) and the JSON.parse path (batches) agree", () => {
  async function bothWays(path: string) {
    const viaVisit: unknown[] = [];
    const a = readHistory(path);
    const count = await a.visit((f) => viaVisit.push(fields(f)));
    const b = readHistory(path);
    const viaBatches: unknown[] = [];
    const scratch = emptyOpFacts();
    for await (const batch of b.batches())
      for (const op of batch) viaBatches.push(fields(factsOf(op, scratch)));
    expect(count).toBe(viaVisit.length);
    // Once a line is an error, neither path hands on more ops; which ops before it were handed
    // on differs (visit streams op by op, batches holds back the batch with the error).
    if (a.errors.length === 0) expect(viaVisit).toEqual(viaBatches);
    expect(a.errors).toEqual(b.errors);
    expect(a.warnings).toEqual(b.warnings);
    return a;
  }

  it("on random files: valid histories with junk, blank and CRLF lines, and a cut-off end", async () => {
    let file = 0;
    await fc.assert(
      fc.asyncProperty(
        chaosHistory,
        fc.array(fc.tuple(fc.nat(), fc.oneof(mutatedLine, fc.constantFrom("", "  ", "\r", "\uFEFF")))),
        fc.constantFrom("\n", "\r\n"),
        fc.nat(40),
        async (ops, junk, eol, cut) => {
          const lines = ops.map(serializeOp);
          for (const [at, s] of junk) lines.splice(at % (lines.length + 1), 0, s);
          const text = lines.join(eol) + eol;
          const path = join(dir, `r${file++}.jsonl`);
          writeFileSync(path, cut > 0 && cut < text.length ? text.slice(0, -cut) : text);
          await bothWays(path);
        },
      ),
      { numRuns: 200 },
    );
  });

  it("across 64 KiB chunk boundaries, with line numbers counted over blank lines", async () => {
    const lines: string[] = [];
    for (let i = 0; i < 20_000; i++) {
      const grant = `${i % 7}:${i}`;
      const op = { time: i, process: i % 7, f: "write", lock: "L", grant } as const;
      lines.push(
        serializeOp({ ...op, index: 2 * i, type: "invoke" }),
        serializeOp({ ...op, index: 2 * i + 1, type: "ok", accepted: true }),
      );
      if (i % 1000 === 999) lines.push("");
    }
    lines.push('{"index":"bad"}');
    const path = join(dir, "big.jsonl");
    writeFileSync(path, `${lines.join("\n")}\n`);
    const stream = await bothWays(path);
    expect(stream.errors).toEqual([expect.objectContaining({ line: 40_021, field: "index" })]);
  });
});
