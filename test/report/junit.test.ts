import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  type JUnitCase,
  type JUnitSuite,
  mergeJUnitSuites,
  parseJUnit,
  renderJUnit,
} from "../../src/report/junit.js";

const caseArb: fc.Arbitrary<JUnitCase> = fc
  .record({
    name: fc.string({ minLength: 1 }),
    classname: fc.string(),
    timeSeconds: fc.integer({ min: 0, max: 10_000_000 }).map((ms) => ms / 1000),
    outcome: fc.constantFrom("passed", "failed", "error", "skipped" as const),
    message: fc.string({ minLength: 1 }),
    details: fc.string({ minLength: 1 }),
  })
  .map((c) =>
    c.outcome === "passed"
      ? { name: c.name, classname: c.classname, timeSeconds: c.timeSeconds, outcome: c.outcome }
      : c,
  );

/** XML 1.0 cannot carry most control characters or lone surrogates: keep to what a report can contain. */
function xmlSafe(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) return false;
    if ((c >= 0xd800 && c <= 0xdfff) || c === 0xfffe || c === 0xffff) return false;
  }
  return true;
}

describe("JUnit XML", () => {
  it("reads back what it writes, whatever the names and failure texts", () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ name: fc.string(), cases: fc.array(caseArb, { maxLength: 4 }) }), {
          maxLength: 3,
        }),
        (suites: JUnitSuite[]) => {
          const strings = suites.flatMap((s) => [
            s.name,
            ...s.cases.flatMap((c) => [c.name, c.classname, c.message ?? "", c.details ?? ""]),
          ]);
          fc.pre(strings.every(xmlSafe) && strings.every((s) => s.trim() === s && !/\r/.test(s)));
          const back = parseJUnit(renderJUnit(suites));
          expect(back).toEqual({
            ok: true,
            value: suites.map((s) => ({ name: s.name, cases: s.cases.map(withoutSkippedDetails) })),
          });
        },
      ),
    );
  });

  it("counts tests, failures and errors on every level", () => {
    const xml = renderJUnit([
      {
        name: "lockcheck targets",
        properties: { seed: "7" },
        cases: [
          { name: "sim:redlock", classname: "targets", timeSeconds: 1.5, outcome: "passed" },
          {
            name: "sim:lease",
            classname: "targets",
            timeSeconds: 2,
            outcome: "failed",
            message: "violation <found>",
            details: "replay: lockcheck replay x",
          },
          {
            name: "redis:lease",
            classname: "targets",
            timeSeconds: 0,
            outcome: "error",
            message: "no redis-server",
          },
        ],
      },
    ]);
    expect(xml).toContain(
      '<testsuites name="lockcheck" tests="3" failures="1" errors="1" skipped="0" time="3.500">',
    );
    expect(xml).toContain('<property name="seed" value="7"/>');
    expect(xml).toContain('<failure message="violation &lt;found&gt;">replay: lockcheck replay x</failure>');
  });

  it("rejects files that are not JUnit", () => {
    const r = parseJUnit("<html><body/></html>", "x.xml");
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatchObject({ file: "x.xml", message: expect.stringContaining("<html>") });
  });

  it("merges shards suite by suite, keeping every case", () => {
    const a: JUnitSuite[] = [
      { name: "targets", cases: [{ name: "t1", classname: "c", timeSeconds: 1, outcome: "passed" }] },
    ];
    const b: JUnitSuite[] = [
      {
        name: "corpus",
        cases: [{ name: "h1", classname: "c", timeSeconds: 0, outcome: "failed", message: "m" }],
      },
      { name: "targets", cases: [{ name: "t2", classname: "c", timeSeconds: 2, outcome: "passed" }] },
    ];
    const merged = mergeJUnitSuites([a, b]);
    expect(merged.map((s) => [s.name, s.cases.map((c) => c.name)])).toEqual([
      ["targets", ["t1", "t2"]],
      ["corpus", ["h1"]],
    ]);
  });
});

function withoutSkippedDetails(c: JUnitCase): JUnitCase {
  // A <skipped> element has a message but no body.
  if (c.outcome !== "skipped") return c;
  const { details: _details, ...rest } = c;
  return rest;
}
