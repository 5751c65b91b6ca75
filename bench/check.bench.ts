/**
 * Benchmark of `lockcheck check`'s streaming path. Generates a 1,000,000-op history into a
 * temp dir (removed afterwards), then measures, in this one run:
 * - baseline: read the file and JSON.parse each line, nothing else;
 * - check: stream, parse, validate and run every O(n) checker in one pass (checkHistoryFile,
 *   which is what `lockcheck check` does; lines in lockcheck's own shape are read by the byte
 *   scanner of src/history/scan.ts, not by JSON.parse);
 * and prints their ratio (target <= 1.5) and the peak memory (target < 1 GiB). For reference it
 * also times the same checks fed from JSON.parse (the path every line the scanner declines takes).
 *
 * Run: npm run build && npm run bench:check   (OPS=200000 for a quicker run)
 */
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { checkHistoryFile, createCheckers, stepAll } from "../src/checkers/index.js";
import { emptyOpFacts, factsOf } from "../src/history/facts.js";
import { readLineBatches } from "../src/history/lines.js";
import type { Op } from "../src/history/op.js";
import { readHistory } from "../src/history/read.js";
import { writeHistory } from "../src/history/write.js";

const TOTAL_OPS = Number(process.env.OPS ?? 1_000_000);
const CLIENTS = 8;
/** Rounds of (baseline, check), interleaved; the fastest of each is reported (least disturbed by other load). */
const ROUNDS = 5;

/** A deterministic small PRNG (mulberry32): the bench needs speed and repeatability, not quality. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Shaped like lockcheck's client workload (src/workload/client.ts): each of 8 clients thinks,
 * acquires a lease lock (failing while another holds it), makes 1-4 writes to a fencing
 * resource, and releases. Holders sometimes outlive their lease, so the resource rejects some
 * stale writes; some writes time out (info); the nemesis pauses clients. Tokens start above
 * 2^53, so every token takes the exact (string → BigInt) path.
 */
function* workload(total: number): Generator<Op> {
  const rnd = prng(7);
  let index = 0;
  let time = 0;
  let token = 2n ** 60n;
  let resourceMax = 0n;
  let holder: { grant: string; until: number } | undefined;
  type State = {
    phase: "idle" | "acquiring" | "holding" | "writing" | "releasing";
    grant: string;
    token: bigint;
    n: number;
    writesLeft: number;
  };
  const clients: State[] = Array.from({ length: CLIENTS }, () => ({
    phase: "idle",
    grant: "",
    token: 0n,
    n: 0,
    writesLeft: 0,
  }));
  const lock = "bench";
  while (index < total) {
    time += 1 + Math.floor(rnd() * 50_000);
    if (rnd() < 0.01) {
      yield {
        index: index++,
        time,
        process: "nemesis",
        type: "info",
        f: "pause",
        node: `client:${Math.floor(rnd() * CLIENTS)}`,
      };
      continue;
    }
    const p = Math.floor(rnd() * CLIENTS);
    const c = clients[p]!;
    if (c.phase === "idle") {
      if (rnd() < 0.85) continue; // thinking
      c.phase = "acquiring";
      // The lease time asked for, as lockcheck records it: the 2-ms leases granted below.
      yield { index: index++, time, process: p, type: "invoke", f: "acquire", lock, ttlMs: 2 };
    } else if (c.phase === "acquiring") {
      if (!holder || holder.until < time) {
        c.grant = `${p}:${c.n++}`;
        c.token = token++;
        holder = { grant: c.grant, until: time + 2_000_000 };
        c.phase = "holding";
        c.writesLeft = 1 + Math.floor(rnd() * 4);
        yield {
          index: index++,
          time,
          process: p,
          type: "ok",
          f: "acquire",
          lock,
          grant: c.grant,
          token: c.token,
        };
      } else {
        c.phase = "idle";
        yield { index: index++, time, process: p, type: "fail", f: "acquire", lock, error: "held" };
      }
    } else if (c.phase === "holding") {
      if (c.writesLeft > 0) {
        c.writesLeft--;
        c.phase = "writing";
        yield {
          index: index++,
          time,
          process: p,
          type: "invoke",
          f: "write",
          lock,
          grant: c.grant,
          token: c.token,
          value: index,
        };
      } else {
        c.phase = "releasing";
        yield { index: index++, time, process: p, type: "invoke", f: "release", lock, grant: c.grant };
      }
    } else if (c.phase === "writing") {
      c.phase = "holding";
      if (rnd() < 0.02) {
        yield {
          index: index++,
          time,
          process: p,
          type: "info",
          f: "write",
          lock,
          grant: c.grant,
          token: c.token,
          error: "timeout",
        };
      } else {
        const accepted = c.token >= resourceMax;
        if (accepted) resourceMax = c.token;
        yield {
          index: index++,
          time,
          process: p,
          type: "ok",
          f: "write",
          lock,
          grant: c.grant,
          token: c.token,
          accepted,
        };
      }
    } else {
      c.phase = "idle";
      const mine = holder?.grant === c.grant;
      if (mine) holder = undefined;
      yield {
        index: index++,
        time,
        process: p,
        type: mine ? "ok" : "fail",
        f: "release",
        lock,
        grant: c.grant,
      };
    }
  }
}

let peakRss = 0;
const sampleRss = () => {
  peakRss = Math.max(peakRss, process.memoryUsage().rss);
};

async function baseline(path: string): Promise<number> {
  let n = 0;
  for await (const batch of readLineBatches(path)) {
    for (const line of batch.lines) if (JSON.parse(line) !== null) n++;
    sampleRss();
  }
  return n;
}

/** What `lockcheck check` does (src/cli/commands/check.ts). */
async function check(path: string): Promise<number> {
  const rss = setInterval(sampleRss, 20);
  const checked = await checkHistoryFile(path).finally(() => clearInterval(rss));
  sampleRss();
  if (!checked.ok) throw new Error(`generated history is invalid: ${checked.error[0]!.message}`);
  const { verdicts, ops } = checked.value;
  if (verdicts.some((v) => v.valid === false)) throw new Error("the fenced workload should not be flagged");
  return ops;
}

/** The same checks fed from JSON.parse: readHistory's batch path, then each op's facts. */
async function checkViaJsonParse(path: string): Promise<number> {
  const checkers = createCheckers();
  const step = stepAll(checkers);
  const facts = emptyOpFacts();
  const stream = readHistory(path);
  let n = 0;
  for await (const batch of stream.batches()) {
    for (const op of batch) step(factsOf(op, facts));
    n += batch.length;
    sampleRss();
  }
  if (stream.errors.length > 0) throw new Error(`generated history is invalid: ${stream.errors[0]!.message}`);
  if (checkers.some((c) => c.finish().valid === false))
    throw new Error("the fenced workload should not be flagged");
  return n;
}

interface Timing {
  /** Wall-clock time. */
  ms: number;
  /** CPU time of this process (user + system, all threads including GC). */
  cpuMs: number;
  n: number;
}

async function timed(f: () => Promise<number>): Promise<Timing> {
  (globalThis as { gc?: () => void }).gc?.();
  const cpu = process.cpuUsage();
  const start = process.hrtime.bigint();
  const n = await f();
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  const used = process.cpuUsage(cpu);
  return { ms, cpuMs: (used.user + used.system) / 1000, n };
}

const fastest = (ts: Timing[], key: "ms" | "cpuMs") => Math.min(...ts.map((t) => t[key]));

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "lockcheck-bench-"));
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
    const path = join(dir, "history.jsonl");
    const written = await writeHistory(path, workload(TOTAL_OPS));
    if (!written.ok) throw new Error(written.error.message);
    const mb = statSync(path).size / 2 ** 20;
    console.log(`history: ${TOTAL_OPS.toLocaleString("en")} ops, ${mb.toFixed(1)} MiB`);
    await baseline(path); // warm the page cache and the JIT
    const base: Timing[] = [];
    const full: Timing[] = [];
    const viaJson: Timing[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      const b = await timed(() => baseline(path));
      const c = await timed(() => check(path));
      const j = await timed(() => checkViaJsonParse(path));
      if (b.n !== TOTAL_OPS || c.n !== TOTAL_OPS || j.n !== TOTAL_OPS)
        throw new Error(`read ${b.n} / ${c.n} / ${j.n} ops, expected ${TOTAL_OPS}`);
      base.push(b);
      full.push(c);
      viaJson.push(j);
    }
    const row = (label: string, ts: Timing[]) =>
      `${label} ${fastest(ts, "ms").toFixed(0).padStart(6)} ms wall, ${fastest(ts, "cpuMs").toFixed(0).padStart(6)} ms cpu`;
    console.log(`fastest of ${ROUNDS} interleaved rounds:`);
    console.log(row("  read + JSON.parse each line:         ", base));
    console.log(row("  read + parse + validate + 4 checkers:", full));
    console.log(
      `ratio: ${(fastest(full, "ms") / fastest(base, "ms")).toFixed(2)} wall, ` +
        `${(fastest(full, "cpuMs") / fastest(base, "cpuMs")).toFixed(2)} cpu (target <= 1.5)`,
    );
    console.log(row("  for reference, the same fed by JSON.parse:", viaJson));
    console.log(
      `  its ratio: ${(fastest(viaJson, "ms") / fastest(base, "ms")).toFixed(2)} wall, ` +
        `${(fastest(viaJson, "cpuMs") / fastest(base, "cpuMs")).toFixed(2)} cpu (lines the scanner declines take this path)`,
    );
    const maxRssMiB = process.resourceUsage().maxRSS / 1024;
    console.log(
      `peak memory: rss ${(peakRss / 2 ** 20).toFixed(0)} MiB sampled, maxRSS ${maxRssMiB.toFixed(0)} MiB (target < 1024 MiB)`,
    );
  } finally {
    cleanup();
  }
}

await main();
