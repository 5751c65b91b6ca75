/**
 * `npm run bench:lin`: lockcheck's linearizability checker on the histories Porcupine is
 * measured on, timed the way Porcupine's figures were (the check alone; parsing is timed
 * separately), with the ratio to Porcupine's time on this machine.
 *
 * Porcupine figures (Go 1.19, anishathalye/porcupine @ 55508eb2, measured on this project's
 * 2-core machine, check only; see /work/shared/data/README.md): all 102 non-empty etcd Jepsen
 * logs 517 ms in total; kv c50-ok 210 ms; kv c10 without partitioning by key 2.6 s (ok) and
 * 3.0 s (bad). Data: /work/shared/data, or $LOCKCHECK_REFERENCE_DATA.
 *
 * Each case runs `LIN_BENCH_RUNS` times (default 5) in this one process. The first run pays
 * for V8's JIT compiling the search; later runs show the compiled speed. Both are printed, as
 * wall time and as this process's CPU time (the machine is shared: CPU time is steadier), with
 * ratios to Porcupine (below 1 = faster). Every verdict is checked against the expected one;
 * a wrong verdict fails the benchmark (exit 1).
 */
import { readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { callsFromJepsen } from "../src/checkers/linearizable/lin-calls.js";
import { decodeKvCall, linOpsFromCalls } from "../src/checkers/linearizable/lin-models.js";
import { checkLinearizable, type LinearizableResult } from "../src/checkers/linearizable/linearizable.js";
import { casRegisterModel } from "../src/checkers/linearizable/models/cas-register.js";
import {
  type KvInput,
  type KvOutput,
  kvModel,
  kvWholeModel,
} from "../src/checkers/linearizable/models/kv.js";
import type { LinOp } from "../src/checkers/linearizable/models/model.js";
import { parseJepsenEdn } from "../src/formats/jepsen-edn.js";
import { loadPorcupineEtcdLogs, PORCUPINE_ETCD_LINEARIZABLE } from "./porcupine-etcd.js";

const DATA = process.env.LOCKCHECK_REFERENCE_DATA ?? "/work/shared/data";
const RUNS = Math.max(1, Number(process.env.LIN_BENCH_RUNS ?? 5));
interface Case {
  name: string;
  /** Porcupine's check time on this machine, ms; undefined when not measured. */
  porcupineMs: number | undefined;
  /** Parses the inputs; returns a function that checks them all once and says whether every verdict was right. */
  prepare(): () => { right: boolean; results: LinearizableResult[] };
}

function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

function kvOps(file: string): LinOp<KvInput, KvOutput>[] {
  const events = parseJepsenEdn(readFileSync(join(DATA, "porcupine/kv", file), "utf8"));
  if (!events.ok) throw new Error(`${file}: ${events.error.message}`);
  const calls = callsFromJepsen(events.value);
  if (!calls.ok) throw new Error(`${file}: ${calls.error.message}`);
  const ops = linOpsFromCalls(calls.value, decodeKvCall);
  if (!ops.ok) throw new Error(`${file}: ${ops.error.message}`);
  return ops.value;
}

const kvCase = (
  name: string,
  file: string,
  whole: boolean,
  expected: boolean,
  porcupineMs?: number,
): Case => ({
  name,
  porcupineMs,
  prepare() {
    const ops = kvOps(file);
    return () => {
      const r = whole ? checkLinearizable(kvWholeModel(), ops) : checkLinearizable(kvModel(), ops);
      return { right: r.valid === expected, results: [r] };
    };
  },
});

const CASES: Case[] = [
  {
    name: "etcd: 102 Jepsen logs (cas-register)",
    porcupineMs: 517,
    prepare() {
      const logs = loadPorcupineEtcdLogs(DATA);
      return () => {
        let right = true;
        const results = logs.map(({ i, ops }) => {
          const r = checkLinearizable(casRegisterModel, ops as LinOp<never, never>[]);
          if (r.valid !== PORCUPINE_ETCD_LINEARIZABLE.has(i)) right = false;
          return r;
        });
        return { right, results };
      };
    },
  },
  kvCase("kv c50-ok, per key", "c50-ok.txt", false, true, 210),
  kvCase("kv c10-ok, no partitioning", "c10-ok.txt", true, true, 2600),
  kvCase("kv c10-bad, no partitioning", "c10-bad.txt", true, false, 3000),
  kvCase("kv c50-bad, per key (no Porcupine figure)", "c50-bad.txt", false, false),
];

function fmt(ms: number): string {
  return ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(0)} ms`;
}

function ratio(ms: number, ref: number | undefined): string {
  return ref === undefined ? "" : ` (×${(ms / ref).toFixed(2)})`;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor((s.length - 1) / 2)] as number;
}

console.log(
  `lockcheck linearizability benchmark: ${RUNS} runs per case, node ${process.version}, load average ${loadavg()
    .map((l) => l.toFixed(1))
    .join(" ")}`,
);
console.log("times are the check alone; (×r) = lockcheck time / Porcupine time, below 1 is faster\n");
let allRight = true;
for (const c of CASES) {
  const parseStart = performance.now();
  const run = c.prepare();
  const parseMs = performance.now() - parseStart;
  const wall: number[] = [];
  const cpu: number[] = [];
  let configs = 0;
  let peakSearchMb = 0;
  let right = true;
  for (let k = 0; k < RUNS; k++) {
    const w0 = performance.now();
    const c0 = cpuMs();
    const out = run();
    cpu.push(cpuMs() - c0);
    wall.push(performance.now() - w0);
    right &&= out.right;
    configs = out.results.reduce((n, r) => n + r.statesExplored, 0);
    peakSearchMb = Math.max(peakSearchMb, ...out.results.map((r) => r.peakSearchBytes / 2 ** 20));
  }
  allRight &&= right;
  const ref = c.porcupineMs;
  console.log(`${c.name}${ref === undefined ? "" : ` — Porcupine ${fmt(ref)}`}`);
  console.log(
    `  parse ${fmt(parseMs)}; verdicts ${right ? "all as expected" : "WRONG"}; ${configs} configurations explored`,
  );
  console.log(
    `  first run: wall ${fmt(wall[0] as number)}${ratio(wall[0] as number, ref)}, cpu ${fmt(cpu[0] as number)}${ratio(cpu[0] as number, ref)}`,
  );
  if (RUNS > 1) {
    const mw = median(wall.slice(1));
    const mc = median(cpu.slice(1));
    console.log(`  later runs (median): wall ${fmt(mw)}${ratio(mw, ref)}, cpu ${fmt(mc)}${ratio(mc, ref)}`);
  }
  console.log(`  peak search tables ${peakSearchMb.toFixed(1)} MiB`);
}
const mem = process.memoryUsage();
console.log(
  `\npeak RSS of this process ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MiB; ` +
    `heap now ${(mem.heapUsed / 2 ** 20).toFixed(0)} MiB, array buffers now ${(mem.arrayBuffers / 2 ** 20).toFixed(0)} MiB`,
);
if (!allRight) {
  console.log("some verdicts were wrong");
  process.exitCode = 1;
}
