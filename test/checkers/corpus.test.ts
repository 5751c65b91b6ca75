/**
 * The saved corpus: every histories/<name>/ entry's history must read cleanly and every
 * streaming checker named in its expected.json must reach the expected verdict.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type CheckerName, checkOps, isCheckerName } from "../../src/checkers/index.js";
import { readHistoryFile } from "../../src/history/read.js";

const ROOT = join(import.meta.dirname, "../../histories");
const entries = readdirSync(ROOT, { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => d.name)
  .sort();

interface Expected {
  description: string;
  verdicts: Record<string, boolean | "unknown">;
}

function loadExpected(name: string): Expected {
  const raw = JSON.parse(readFileSync(join(ROOT, name, "expected.json"), "utf8")) as Expected;
  expect(typeof raw.description).toBe("string");
  expect(raw.description.length).toBeGreaterThan(20);
  for (const v of Object.values(raw.verdicts)) expect([true, false, "unknown"]).toContain(v);
  return raw;
}

describe("histories/ corpus", () => {
  it("has the hand-written entries", () => {
    for (const name of [
      "gc-pause-unfenced",
      "gc-pause-fenced",
      "crash-jams-ttl-less-lock",
      "redlock-clock-jump-double-grant",
      "clean-serial",
    ]) {
      expect(entries).toContain(name);
    }
  });

  it.each(entries)("%s reaches its expected verdicts", async (name) => {
    expect(existsSync(join(ROOT, name, "history.jsonl"))).toBe(true);
    const expected = loadExpected(name);
    const history = await readHistoryFile(join(ROOT, name, "history.jsonl"));
    if (!history.ok) throw new Error(JSON.stringify(history.error));
    expect(history.value.warnings).toEqual([]);
    const names = Object.keys(expected.verdicts).filter(isCheckerName) as CheckerName[];
    const actual = Object.fromEntries(checkOps(history.value.ops, names).map((v) => [v.checker, v.valid]));
    expect(actual).toEqual(Object.fromEntries(names.map((n) => [n, expected.verdicts[n]])));
  });
});
