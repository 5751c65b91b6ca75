/**
 * A line far longer than the readers' chunks (and one with multi-byte characters cut at chunk
 * boundaries) is read whole and exactly by both readers. Their speed on a 50 MB line is measured
 * by bench/long-line.bench.ts, not here.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { checkHistoryFile } from "../../src/checkers/index.js";
import { readHistoryFile } from "../../src/history/read.js";
import { testTempDir } from "../temp-dir.js";

const dir = testTempDir("lockcheck-long-line-");

describe("long lines", () => {
  it.each([true, false])(
    "a 1 MB op line spanning many chunks is read exactly (last line terminated: %s)",
    async (terminated) => {
      const value = "é€x".repeat(150_000);
      const invoke = `{"index":0,"time":0,"process":1,"type":"invoke","f":"acquire","lock":"L"}`;
      const ok = `{"index":1,"time":5,"process":1,"type":"ok","f":"acquire","lock":"L","grant":"1:0","token":1,"value":"${value}"}`;
      const path = join(dir, `long-${terminated}.jsonl`);
      writeFileSync(path, `${invoke}\n${ok}${terminated ? "\n" : ""}`);
      const read = await readHistoryFile(path);
      expect(read.ok).toBe(true);
      if (!read.ok) return;
      expect(read.value.ops.length).toBe(2);
      expect(read.value.ops[1]!.value).toBe(value);
      const checked = await checkHistoryFile(path);
      expect(checked.ok && checked.value.ops).toBe(2);
    },
  );
});
