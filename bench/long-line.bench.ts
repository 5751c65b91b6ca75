/**
 * Benchmark of reading a history whose one line is huge (an op with a 50 MB `value`): reading
 * must take time linear in the line's length (issue 12: it was quadratic, 25 MB took 33 s).
 * Writes a 5 MB and a 50 MB one-line history into a temp dir (removed afterwards), checks each
 * as `lockcheck check` does (the byte reader) and reads each through the op-object reader, and
 * prints the times and the 50 MB / 5 MB ratio (linear: about 10; target: 50 MB in < 2 s).
 *
 * Run: npm run build && npm run bench:long-line
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { checkHistoryFile } from "../src/checkers/index.js";
import { readHistoryFile } from "../src/history/read.js";

function historyWithLine(path: string, valueBytes: number): void {
  const invoke = `{"index":0,"time":0,"process":1,"type":"invoke","f":"acquire","lock":"L","value":"${"x".repeat(valueBytes)}"}`;
  const ok = '{"index":1,"time":5,"process":1,"type":"ok","f":"acquire","lock":"L","grant":"1:0","token":1}';
  writeFileSync(path, `${invoke}\n${ok}\n`);
}

async function timedMs(f: () => Promise<unknown>): Promise<number> {
  const start = process.hrtime.bigint();
  await f();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

async function measure(path: string): Promise<{ check: number; read: number }> {
  const check = await timedMs(async () => {
    const r = await checkHistoryFile(path);
    if (!r.ok || r.value.ops !== 2)
      throw new Error(`unexpected: ${JSON.stringify(r.ok ? r.value.ops : r.error)}`);
  });
  const read = await timedMs(async () => {
    const r = await readHistoryFile(path);
    if (!r.ok || r.value.ops.length !== 2) throw new Error("unexpected read");
  });
  return { check, read };
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "lockcheck-bench-line-"));
  const cleanup = () => rmSync(dir, { recursive: true, force: true });
  process.once("SIGINT", () => {
    cleanup();
    process.exit(130);
  });
  process.once("SIGTERM", () => {
    cleanup();
    process.exit(143);
  });
  try {
    const small = join(dir, "5mb.jsonl");
    const big = join(dir, "50mb.jsonl");
    historyWithLine(small, 5_000_000);
    historyWithLine(big, 50_000_000);
    await measure(small); // warm-up
    const s = await measure(small);
    const b = await measure(big);
    console.log(`one 5 MB line:  check ${s.check.toFixed(0)} ms, read as ops ${s.read.toFixed(0)} ms`);
    console.log(
      `one 50 MB line: check ${b.check.toFixed(0)} ms, read as ops ${b.read.toFixed(0)} ms (target < 2000 ms)`,
    );
    console.log(
      `ratio 50 MB / 5 MB: check ${(b.check / s.check).toFixed(1)}, read as ops ${(b.read / s.read).toFixed(1)} (linear: about 10)`,
    );
  } finally {
    cleanup();
  }
}

await main();
