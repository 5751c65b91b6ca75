import { appendFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  openHistoryWriter,
  parseOpLine,
  readHistory,
  readHistoryFile,
  serializeOp,
  writeHistory,
} from "../../src/history/jsonl.js";
import { CLIENT_FS, NEMESIS_FS, OP_TYPES, type Op } from "../../src/history/op.js";
import { chaosHistory } from "../checkers/arbitraries.js";
import { testTempDir } from "../temp-dir.js";

const dir = testTempDir("lockcheck-jsonl-");
let fileNo = 0;
function fileWith(text: string): string {
  const path = join(dir, `h${fileNo++}.jsonl`);
  writeFileSync(path, text);
  return path;
}

const tokenArb = fc.oneof(
  fc.bigInt({ min: 0n, max: 1000n }),
  fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }),
);
const base = {
  index: fc.nat(),
  time: fc.nat(),
  type: fc.constantFrom(...OP_TYPES),
};
const clientOpArb = fc.record(
  {
    ...base,
    process: fc.nat(50),
    f: fc.constantFrom(...CLIENT_FS),
    lock: fc.string({ minLength: 1 }),
    grant: fc.string(),
    token: tokenArb,
    value: fc.jsonValue(),
    error: fc.string(),
  },
  { requiredKeys: ["index", "time", "type", "process", "f", "lock", "grant"] },
);
const nemesisOpArb = fc.record(
  {
    ...base,
    process: fc.constant("nemesis" as const),
    f: fc.constantFrom(...NEMESIS_FS),
    node: fc.string(),
    value: fc.jsonValue(),
  },
  { requiredKeys: ["index", "time", "type", "process", "f"] },
);
const opArb: fc.Arbitrary<Op> = fc.oneof(
  clientOpArb.chain((o) =>
    o.f === "write"
      ? fc.option(fc.boolean(), { nil: undefined }).map((accepted) => ({ ...o, accepted }))
      : fc.constant(o),
  ),
  nemesisOpArb,
) as fc.Arbitrary<Op>;

/** What JSON can carry: no undefined keys, -0 as 0 inside `value`. */
function jsonNormal(op: Op): Op {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(op)) {
    if (v !== undefined) out[k] = k === "value" ? JSON.parse(JSON.stringify(v)) : v;
  }
  return out as unknown as Op;
}

describe("serializeOp / parseOpLine", () => {
  it("round-trip any op exactly, including tokens beyond 2^53", () => {
    fc.assert(
      fc.property(opArb, (op) => {
        const line = serializeOp(op);
        expect(line).not.toContain("\n");
        const back = parseOpLine(line, 1);
        expect(back).toStrictEqual({ ok: true, value: jsonNormal(op) });
      }),
      { numRuns: 500 },
    );
  });

  it("writes safe tokens as numbers and larger ones as strings", () => {
    const op = { index: 0, time: 0, process: 1, type: "ok", f: "acquire", lock: "L", grant: "1:0" } as const;
    expect(serializeOp({ ...op, token: 33n })).toContain('"token":33');
    expect(serializeOp({ ...op, token: 2n ** 63n })).toContain('"token":"9223372036854775808"');
  });

  it("recovers an exact token written as a huge JSON number", () => {
    const line =
      '{"index":0,"time":0,"process":1,"type":"ok","f":"acquire","lock":"L","grant":"1:0","token":9223372036854775807}';
    const r = parseOpLine(line, 7);
    expect(r.ok && (r.value as { token?: bigint }).token).toBe(9223372036854775807n);
  });

  it.each([
    ['{"index":0,"time":0,"process":1,"type":"done","f":"acquire","lock":"L"}', "type", "unknown type"],
    ['{"index":0,"time":0,"process":1,"type":"ok","f":"acquire","lock":"L","token":1.5}', "token", "integer"],
    [
      '{"index":0,"time":0,"process":1,"type":"ok","f":"acquire","lock":"L","token":"12x"}',
      "token",
      "integer",
    ],
    [
      '{"index":0,"time":0,"process":1,"type":"ok","f":"acquire","lock":"L","token":1e300}',
      "token",
      "too large",
    ],
    ['{"index":-1,"time":0,"process":1,"type":"ok","f":"acquire","lock":"L"}', "index", "non-negative"],
    ['{"index":0,"time":"5","process":1,"type":"ok","f":"acquire","lock":"L"}', "time", "integer"],
    ['{"index":0,"time":0,"process":"","type":"ok","f":"acquire","lock":"L"}', "process", "client id"],
    ['{"index":0,"time":0,"process":-3,"type":"ok","f":"acquire","lock":"L"}', "process", "client id"],
    ['{"index":0,"time":0,"process":1.5,"type":"ok","f":"acquire","lock":"L"}', "process", "client id"],
    ['{"index":0,"time":0,"process":1,"type":"ok","f":"explode","lock":"L"}', "f", "unknown client f"],
    ['{"index":0,"time":0,"process":"nemesis","type":"info","f":"write"}', "f", "unknown nemesis f"],
    ['{"index":0,"time":0,"process":1,"type":"ok","f":"acquire"}', "lock", "lock name"],
    ['{"index":0,"time":0,"process":1,"type":"ok","f":"write","lock":"L"}', "grant", "must name the grant"],
    [
      '{"index":0,"time":0,"process":1,"type":"ok","f":"write","lock":"L","grant":"g","accepted":"yes"}',
      "accepted",
      "true or false",
    ],
    [
      '{"index":0,"time":0,"process":1,"type":"ok","f":"release","lock":"L","accepted":true}',
      "accepted",
      "only writes",
    ],
    ["[1,2]", undefined, "JSON object"],
    ['{"index":0,', undefined, "not valid JSON"],
  ])("rejects %s with field %s", (line, field, message) => {
    const r = parseOpLine(line, 12, "h.jsonl");
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error.file).toBe("h.jsonl");
    expect(r.error.line).toBe(12);
    expect(r.error.field).toBe(field);
    expect(r.error.message).toContain(message);
  });

  it("never throws on malformed lines: every failure names the line", () => {
    const valid = serializeOp({
      index: 3,
      time: 9,
      process: 1,
      type: "invoke",
      f: "write",
      lock: "L",
      grant: "1:0",
      token: 4n,
    });
    const mutated = fc.oneof(
      fc.nat(valid.length).map((n) => valid.slice(0, n)),
      fc
        .tuple(fc.nat(valid.length - 1), fc.string({ minLength: 1, maxLength: 3 }))
        .map(([i, s]) => valid.slice(0, i) + s + valid.slice(i + 1)),
      fc
        .tuple(
          fc.constantFrom("index", "time", "process", "type", "f", "lock", "grant", "token", "accepted"),
          fc.jsonValue(),
        )
        .map(([k, v]) => JSON.stringify({ ...JSON.parse(valid), [k]: v })),
      fc.string(),
    );
    fc.assert(
      fc.property(mutated, fc.integer({ min: 1, max: 10_000 }), (line, lineNo) => {
        const r = parseOpLine(line, lineNo, "f.jsonl");
        if (!r.ok) {
          expect(r.error.line).toBe(lineNo);
          expect(r.error.file).toBe("f.jsonl");
          expect(r.error.message.length).toBeGreaterThan(5);
        }
      }),
      { numRuns: 2000 },
    );
  });
});

describe("reading and writing files", () => {
  it("writeHistory then readHistoryFile gives back the same history", async () => {
    await fc.assert(
      fc.asyncProperty(chaosHistory, async (ops) => {
        const path = join(dir, "roundtrip.jsonl");
        expect((await writeHistory(path, ops)).ok).toBe(true);
        const back = await readHistoryFile(path);
        expect(back).toEqual({ ok: true, value: { ops, warnings: [] } });
      }),
      { numRuns: 50 },
    );
  });

  it("HistoryWriter appends whole lines; a crash mid-line leaves a warning and the checked prefix", async () => {
    const path = join(dir, "crash.jsonl");
    const w = openHistoryWriter(path);
    if (!w.ok) throw new Error(w.error.message);
    w.value.append({ index: 0, time: 0, process: 1, type: "invoke", f: "acquire", lock: "L" });
    w.value.append({
      index: 1,
      time: 5,
      process: 1,
      type: "ok",
      f: "acquire",
      lock: "L",
      grant: "1:0",
      token: 1n,
    });
    w.value.close();
    appendFileSync(path, '{"index":2,"time":7,"pro');
    const r = await readHistoryFile(path);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value.ops.map((o) => o.index)).toEqual([0, 1]);
    expect(r.value.warnings).toHaveLength(1);
    expect(r.value.warnings[0]).toMatchObject({ file: path, line: 3 });
    expect(r.value.warnings[0]!.message).toContain("cut off");
  });

  it("a garbled line that is not the last is an error, not a warning", async () => {
    const path = fileWith(
      '{"index":0,"time":0,"pro\n{"index":1,"time":0,"process":1,"type":"invoke","f":"acquire","lock":"L"}\n',
    );
    const r = await readHistoryFile(path);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error[0]).toMatchObject({ file: path, line: 1 });
  });

  const op = (o: Record<string, unknown>) => JSON.stringify({ process: 1, lock: "L", ...o });
  it.each([
    [
      "ok without invoke",
      [op({ index: 0, time: 0, type: "ok", f: "acquire", grant: "1:0" })],
      { line: 1, field: "type" },
      "without invoke",
    ],
    [
      "duplicate index",
      [
        op({ index: 0, time: 0, type: "invoke", f: "acquire" }),
        op({ index: 0, time: 1, type: "fail", f: "acquire" }),
      ],
      { line: 2, field: "index" },
      "duplicate index 0",
    ],
    [
      "time going backwards within a process",
      [
        op({ index: 0, time: 10, type: "invoke", f: "acquire" }),
        op({ index: 1, time: 9, type: "fail", f: "acquire" }),
      ],
      { line: 2, field: "time" },
      "backwards",
    ],
    [
      "completion of another f",
      [
        op({ index: 0, time: 0, type: "invoke", f: "acquire" }),
        op({ index: 1, time: 1, type: "ok", f: "release" }),
      ],
      { line: 2, field: "f" },
      "line 1 is acquire",
    ],
    [
      "second invoke while a call is open",
      [
        op({ index: 0, time: 0, type: "invoke", f: "acquire" }),
        op({ index: 1, time: 1, type: "invoke", f: "acquire" }),
      ],
      { line: 2, field: "type" },
      "one call at a time",
    ],
    [
      "a grant handed out twice",
      [
        op({ index: 0, time: 0, type: "invoke", f: "acquire" }),
        op({ index: 1, time: 1, type: "ok", f: "acquire", grant: "g" }),
        op({ index: 2, time: 2, type: "invoke", f: "acquire", process: 2 }),
        op({ index: 3, time: 3, type: "ok", f: "acquire", grant: "g", process: 2 }),
      ],
      { line: 4, field: "grant" },
      "already handed out on line 2",
    ],
    [
      "an acquire ok without grant",
      [
        op({ index: 0, time: 0, type: "invoke", f: "acquire" }),
        op({ index: 1, time: 1, type: "ok", f: "acquire" }),
      ],
      { line: 2, field: "grant" },
      "must carry the grant",
    ],
  ])("reports %s with file, line and field", async (_name, lines, where, message) => {
    const path = fileWith(`${lines.join("\n")}\n`);
    const r = await readHistoryFile(path);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error[0]).toMatchObject({ file: path, ...where });
    expect(r.error[0]!.message).toContain(message);
  });

  it("warns about index gaps but reads the history", async () => {
    const path = fileWith(
      `${op({ index: 0, time: 0, type: "invoke", f: "acquire" })}\n\n${op({ index: 5, time: 1, type: "fail", f: "acquire" })}\n`,
    );
    const r = await readHistoryFile(path);
    expect(r.ok && r.value.warnings).toEqual([
      expect.objectContaining({
        file: path,
        line: 3,
        field: "index",
        message: expect.stringContaining("jumps from 0 to 5"),
      }),
    ]);
  });

  it("a missing file is one error naming it", async () => {
    const r = await readHistoryFile(join(dir, "nope.jsonl"));
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error[0]!.message).toContain("cannot read");
  });

  it("streams in batches across chunk boundaries with correct line numbers", async () => {
    const lines: string[] = [];
    for (let i = 0; i < 30_000; i++) {
      lines.push(
        op({ index: 2 * i, time: i, type: "invoke", f: "acquire" }),
        op({ index: 2 * i + 1, time: i, type: "fail", f: "acquire" }),
      );
    }
    lines.push('{"index":"bad"');
    lines.push(op({ index: 60_000, time: 30_000, type: "invoke", f: "acquire" }));
    const path = fileWith(`${lines.join("\r\n")}\r\n`);
    const stream = readHistory(path);
    let maxIndex = -1;
    for await (const batch of stream.batches()) for (const o of batch) maxIndex = Math.max(maxIndex, o.index);
    // Ops before the error may have been yielded (streaming cannot know); none after it.
    expect(maxIndex).toBeLessThan(60_000);
    expect(stream.errors).toEqual([expect.objectContaining({ file: path, line: 60_001 })]);
    const upTo = fileWith(`${lines.slice(0, 60_000).join("\n")}\n`);
    const ok = readHistory(upTo);
    let count = 0;
    let last = -1;
    for await (const o of ok) {
      expect(o.index).toBe(last + 1);
      last = o.index;
      count++;
    }
    expect(count).toBe(60_000);
    expect(ok.errors).toEqual([]);
  });

  it("fuzz: files of random lines are read without throwing; every error has file and line", async () => {
    const valid = chaosHistory.map((ops) => ops.map(serializeOp));
    await fc.assert(
      fc.asyncProperty(
        valid,
        fc.array(fc.tuple(fc.nat(), fc.string({ maxLength: 30 }))),
        async (lines, junk) => {
          const all = [...lines];
          for (const [at, s] of junk) all.splice(at % (all.length + 1), 0, s);
          const path = join(dir, "fuzz.jsonl");
          writeFileSync(path, all.join("\n"));
          const stream = readHistory(path);
          for await (const _ of stream.batches());
          for (const e of stream.errors) {
            expect(e.file).toBe(path);
            expect(e.line).toBeGreaterThan(0);
          }
        },
      ),
      { numRuns: 100 },
    );
  });
});
