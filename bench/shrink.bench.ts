/**
 * `node dist/bench/shrink.bench.js [from] [to]`: only the shrunk GC-pause counterexample
 * (sim:lease, unfenced resource, client pauses at a time), over fuzz seeds from..to (default
 * 1..20, as in sim.bench.ts), one row per seed: the shrunk size, whether it is within the
 * target (≤ 2 clients, ≤ 4 lock operations, 1 fault), shrinking wall time and CPU time.
 * Quicker than the whole simulator benchmark while working on the shrinker, and it takes
 * other seed ranges, to see that the shrinker is not tuned to the first twenty.
 */
import { fuzz } from "../src/runner/fuzz.js";
import { findTarget } from "../src/targets/index.js";

const lease = findTarget("sim:lease");
if (!lease.ok) throw new Error(lease.error.message);
const [from = 1, to = 20] = process.argv.slice(2).map(Number);

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

interface Row {
  clients: number;
  cycles: number;
  lockOps: number;
  faults: number;
  shrinkMs: number;
}

const rows: Row[] = [];
for (let seed = from; seed <= to; seed++) {
  const cpu = process.cpuUsage();
  const r = await fuzz({
    target: lease.value,
    resource: "unfenced",
    faults: ["pause"],
    faultBounds: { pauses: ["client"] },
    seed,
    runs: 20_000,
  });
  const used = process.cpuUsage(cpu);
  const ce = r.counterexample;
  if (ce === null) {
    console.log(`seed ${seed}: no violation in ${r.runs} runs`);
    continue;
  }
  const row: Row = {
    clients: ce.schedule.clients.length,
    cycles: ce.schedule.clients.reduce((n, c) => n + c.cycles.length, 0),
    lockOps: ce.ops.filter((o) => (o.f === "acquire" || o.f === "release") && o.type === "invoke").length,
    faults: ce.schedule.faults.length,
    shrinkMs: ce.shrinkMs,
  };
  rows.push(row);
  const ok = row.clients <= 2 && row.lockOps <= 4 && row.faults === 1;
  console.log(
    `seed ${String(seed).padStart(3)} ${ok ? "OK  " : "MISS"} ${row.clients} clients, ${row.cycles} cycles, ` +
      `${row.lockOps} lock ops, ${row.faults} faults; shrink ${row.shrinkMs} ms (${ce.shrinkRuns} runs); ` +
      `fuzz+shrink ${Math.round((used.user + used.system) / 1000)} CPU-ms`,
  );
}
const within = rows.filter((r) => r.clients <= 2 && r.lockOps <= 4 && r.faults === 1).length;
const largest = (k: keyof Row) => Math.max(...rows.map((r) => r[k]));
console.log(
  `${within}/${rows.length} within ≤ 2 clients, ≤ 4 lock operations, 1 fault; largest: ${largest("clients")} clients, ` +
    `${largest("lockOps")} lock ops, ${largest("faults")} faults; shrinking median ${median(rows.map((r) => r.shrinkMs))} ms, ` +
    `max ${largest("shrinkMs")} ms`,
);
