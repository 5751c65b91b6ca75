/**
 * A token beyond 2^53 written as a bare JSON integer is read exactly from the top-level
 * `token` key (the last one when repeated, as JSON.parse keeps), never from a "token" nested in
 * another value, inside a string, or earlier on the line.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseOpLine, readHistory } from "../../src/history/jsonl.js";
import { topLevelValueStart } from "../../src/history/top-level-key.js";
import { testTempDir } from "../temp-dir.js";

const dir = testTempDir("lockcheck-big-token-");

/** A token far beyond 2^53 and a different integer that JSON.parse reads as the same double. */
const tokenAndDecoy = fc
  .tuple(fc.bigInt({ min: 2n ** 55n, max: 2n ** 62n }), fc.constantFrom(-2n, -1n, 1n, 2n))
  .map(([token, delta]) => ({ token, decoy: token + delta }))
  .filter(({ token, decoy }) => Number(token) === Number(decoy));

/** Places a decoy "token" can hide in; each renders the decoy's digits. */
const decoyPlaces: ((d: string) => string)[] = [
  (d) => `"value":{"token":${d}}`,
  (d) => `"value":[{"a":[1,{"token":${d}}]},{"token":${d}}]`,
  (d) => `"value":"\\"token\\": ${d}, \\"token\\":${d}"`,
  (d) => `"error":"{\\"token\\":${d}}"`,
  (d) => `"value":{"x":"}","token":${d}}`,
  (d) => `"value":{"s":"\\\\","token":${d}}`,
  (d) => `"xtoken":${d}`,
  (d) => `"tokens":${d}`,
];

/** A line whose top-level token (written last, possibly with an escaped key) is `token`. */
const lineArb = fc
  .record({
    pair: tokenAndDecoy,
    before: fc.subarray([0, 1, 2, 3, 4, 5, 6, 7]),
    after: fc.subarray([0, 1, 2, 3, 4, 5, 6, 7]),
    earlierTopLevel: fc.boolean(),
    escapedKey: fc.constantFrom('"token"', '"\\u0074oken"', '"tok\\u0065n"'),
    spaces: fc.constantFrom("", " ", "  \t"),
  })
  .map(({ pair, before, after, earlierTopLevel, escapedKey, spaces }) => {
    const d = pair.decoy.toString();
    const fields = [
      '"index":0',
      '"time":0',
      '"process":1',
      '"type":"ok"',
      '"f":"acquire"',
      '"lock":"L"',
      '"grant":"1:0"',
    ];
    for (const i of before) fields.push(decoyPlaces[i]!(d));
    if (earlierTopLevel) fields.push(`"token":${d}`);
    fields.push(`${escapedKey}${spaces}:${spaces}${pair.token}`);
    // A later key that merely contains the word is not a duplicate of "token".
    for (const i of after) if (i >= 6) fields.push(decoyPlaces[i]!(d));
    return { line: `{${fields.join(`,${spaces}`)}}`, token: pair.token };
  });

describe("tokens beyond 2^53 written as JSON integers", () => {
  it("are read from the last top-level token key, whatever else on the line says token", () => {
    fc.assert(
      fc.property(lineArb, ({ line, token }) => {
        const r = parseOpLine(line, 1);
        expect(r.ok).toBe(true);
        expect(r.ok && (r.value as { token?: bigint }).token).toBe(token);
      }),
      { numRuns: 500 },
    );
  });

  it("are read the same on the one-pass path (scanner, then JSON.parse for lines it declines)", async () => {
    const samples = fc.sample(lineArb, { numRuns: 60, seed: 12 });
    // Each line becomes an acquire invoke plus its ok, so the history validates.
    const text = samples
      .map(({ line }, i) => {
        const invoke = `{"index":${2 * i},"time":0,"process":1,"type":"invoke","f":"acquire","lock":"L"}`;
        const ok = line.replace('"index":0', `"index":${2 * i + 1}`).replace('"1:0"', `"1:${i}"`);
        return `${invoke}\n${ok}\n`;
      })
      .join("");
    const path = join(dir, "decoys.jsonl");
    writeFileSync(path, text);
    const tokens: (bigint | undefined)[] = [];
    const stream = readHistory(path);
    await stream.visit((facts) => {
      if (facts.type === "ok") tokens.push(facts.token);
    });
    expect(stream.errors).toEqual([]);
    expect(tokens).toEqual(samples.map((s) => s.token));
  });

  it("written as 1e20 or 1.5e19 are refused (they must be strings), not misread", () => {
    for (const written of ["1e20", "100000000000000000000.0", "1.5e19"]) {
      const r = parseOpLine(
        `{"index":0,"time":0,"process":1,"type":"ok","f":"acquire","lock":"L","value":{"token":100000000000000000000},"token":${written}}`,
        3,
      );
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.error.field).toBe("token");
    }
  });
});

describe("topLevelValueStart", () => {
  it("finds the value of the last top-level key and nothing nested or quoted", () => {
    const json = '{"a":{"k":1},"s":"\\"k\\":2","k":3, "b":[{"k":4}], "k" : 5 ,"z":{"k":6}}';
    expect(json.slice(topLevelValueStart(json, "k"), topLevelValueStart(json, "k") + 1)).toBe("5");
    expect(topLevelValueStart('{"a":{"k":1},"s":"k"}', "k")).toBe(-1);
  });
});
