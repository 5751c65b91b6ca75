/**
 * JUnit XML, the format CI systems (GitHub Actions reporters, GitLab, Jenkins) read test
 * results from: `renderJUnit` writes it (through xmlbuilder2, which escapes everything) and
 * `parseJUnit` reads it back, so `lockcheck merge` can combine the files of sharded gate runs.
 *
 * Shape: <testsuites> with one <testsuite> per group (gate: targets, corpus), one <testcase>
 * per item; a failed case has a <failure message="one line">details</failure>, a case that
 * could not run has an <error> instead.
 */
import { create } from "xmlbuilder2";
import { err, type InputError, ok, type Result } from "../result.js";

export type JUnitOutcome = "passed" | "failed" | "error" | "skipped";

export interface JUnitCase {
  name: string;
  classname: string;
  timeSeconds: number;
  outcome: JUnitOutcome;
  /** One line: the failure's message attribute. */
  message?: string;
  /** The failure's body: everything needed to reproduce it (e.g. the replay command). */
  details?: string;
  /** Shown as <system-out>. */
  output?: string;
}

export interface JUnitSuite {
  name: string;
  cases: JUnitCase[];
  properties?: Record<string, string>;
}

function countOf(cases: readonly JUnitCase[], outcome: JUnitOutcome): number {
  return cases.filter((c) => c.outcome === outcome).length;
}

function seconds(cases: readonly JUnitCase[]): string {
  return cases.reduce((t, c) => t + c.timeSeconds, 0).toFixed(3);
}

export function renderJUnit(suites: readonly JUnitSuite[], name = "lockcheck"): string {
  const all = suites.flatMap((s) => s.cases);
  const root = create({ version: "1.0", encoding: "UTF-8" }).ele("testsuites", {
    name,
    tests: all.length,
    failures: countOf(all, "failed"),
    errors: countOf(all, "error"),
    skipped: countOf(all, "skipped"),
    time: seconds(all),
  });
  for (const s of suites) {
    const suite = root.ele("testsuite", {
      name: s.name,
      tests: s.cases.length,
      failures: countOf(s.cases, "failed"),
      errors: countOf(s.cases, "error"),
      skipped: countOf(s.cases, "skipped"),
      time: seconds(s.cases),
    });
    const props = Object.entries(s.properties ?? {});
    if (props.length > 0) {
      const p = suite.ele("properties");
      for (const [k, v] of props) p.ele("property", { name: k, value: v });
    }
    for (const c of s.cases) {
      const tc = suite.ele("testcase", {
        name: c.name,
        classname: c.classname,
        time: c.timeSeconds.toFixed(3),
      });
      if (c.outcome === "failed" || c.outcome === "error") {
        tc.ele(c.outcome === "failed" ? "failure" : "error", { message: c.message ?? c.outcome }).txt(
          c.details ?? "",
        );
      } else if (c.outcome === "skipped") {
        tc.ele("skipped", c.message === undefined ? {} : { message: c.message });
      }
      if (c.output !== undefined && c.output !== "") tc.ele("system-out").txt(c.output);
    }
  }
  return root.end({ prettyPrint: true });
}

/** The DOM surface of xmlbuilder2's parsed nodes that reading JUnit needs. */
interface XmlElement {
  readonly tagName: string;
  readonly textContent: string | null;
  readonly parentNode: unknown;
  getAttribute(name: string): string | null;
  getElementsByTagName(name: string): ArrayLike<XmlElement>;
}

function children(el: XmlElement, tag: string): XmlElement[] {
  return Array.from(el.getElementsByTagName(tag)).filter((c) => c.parentNode === el);
}

function readCase(el: XmlElement): JUnitCase {
  const failure = children(el, "failure")[0];
  const error = children(el, "error")[0];
  const skipped = children(el, "skipped")[0];
  const problem = failure ?? error;
  const out = children(el, "system-out")[0]?.textContent ?? undefined;
  const c: JUnitCase = {
    name: el.getAttribute("name") ?? "",
    classname: el.getAttribute("classname") ?? "",
    timeSeconds: Number(el.getAttribute("time") ?? 0) || 0,
    outcome: failure ? "failed" : error ? "error" : skipped ? "skipped" : "passed",
  };
  const message = problem?.getAttribute("message") ?? skipped?.getAttribute("message") ?? undefined;
  if (message !== undefined && message !== null) c.message = message;
  if (problem?.textContent) c.details = problem.textContent;
  if (out) c.output = out;
  return c;
}

/** Reads JUnit XML (a <testsuites> or a single <testsuite> root). */
export function parseJUnit(xml: string, file?: string): Result<JUnitSuite[], InputError> {
  const where = file === undefined ? {} : { file };
  let root: XmlElement;
  try {
    root = create(xml).root().node as unknown as XmlElement;
  } catch (e) {
    return err({ ...where, message: `not valid XML: ${(e as Error).message}` });
  }
  const suites =
    root.tagName === "testsuites"
      ? children(root, "testsuite")
      : root.tagName === "testsuite"
        ? [root]
        : null;
  if (suites === null) {
    return err({
      ...where,
      message: `not JUnit XML: the root element is <${root.tagName}>, expected <testsuites>`,
    });
  }
  return ok(
    suites.map((s) => {
      const properties: Record<string, string> = {};
      for (const props of children(s, "properties")) {
        for (const p of children(props, "property"))
          properties[p.getAttribute("name") ?? ""] = p.getAttribute("value") ?? "";
      }
      const suite: JUnitSuite = {
        name: s.getAttribute("name") ?? "",
        cases: children(s, "testcase").map(readCase),
      };
      if (Object.keys(properties).length > 0) suite.properties = properties;
      return suite;
    }),
  );
}

/** Suites of the same name are joined, in first-seen order; every case is kept. */
export function mergeJUnitSuites(lists: readonly (readonly JUnitSuite[])[]): JUnitSuite[] {
  const byName = new Map<string, JUnitSuite>();
  for (const list of lists) {
    for (const s of list) {
      let into = byName.get(s.name);
      if (!into) {
        into = { name: s.name, cases: [], ...(s.properties ? { properties: { ...s.properties } } : {}) };
        byName.set(s.name, into);
      }
      into.cases.push(...s.cases);
    }
  }
  return [...byName.values()];
}
