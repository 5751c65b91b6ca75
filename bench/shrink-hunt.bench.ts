/**
 * `node dist/bench/shrink-hunt.bench.js [target] [faults] [schedules]`: how far the shrink pass
 * that real targets get (shrink-real.ts, on real servers) takes a real hunt's failure, with the
 * simulator standing in for the servers. The schedules are those of `fuzz --target
 * module:… --real` (8-s runs, clients repeating their cycles, default 4 clients; the real
 * fuzz's own generator), of a simulated target (default sim:lease, faults pause); the first
 * `schedules` (default 12) that fail are shrunk with the real pass's budget of candidates and
 * its 2-of-2 runs, two at a time. One row per schedule: the size it ends at, the runs it took,
 * and the run after which it first had that size (what a real shrink pays, in real runs of
 * seconds each, to get there). The simulator is deterministic, so each run stands for a real run
 * that goes as the simulator says; real servers add their own noise.
 */
import fc from "fast-check";
import type { FaultCategory } from "../src/generators/bounds.js";
import { REAL_SHRINK, realHuntArb } from "../src/runner/fuzz-real.js";
import { probeViolation } from "../src/runner/same-violation.js";
import { scheduleSize } from "../src/runner/schedule-size.js";
import { shrinkOnRealServers } from "../src/runner/shrink/shrink-real.js";
import type { Schedule } from "../src/schedule/schedule.js";
import { findTarget } from "../src/targets/index.js";
import { count } from "../src/util/count.js";

const name = process.argv[2] ?? "sim:lease";
const faults = (process.argv[3] ?? "pause").split(",") as FaultCategory[];
const wanted = Number(process.argv[4] ?? 12);
const found = findTarget(name);
if (!found.ok) throw new Error(found.error.message);
const t = found.value;

const sizeOf = (s: Schedule): string => {
  const z = scheduleSize(s);
  return `${count(z.clients, "client")}, ${count(z.cycles, "cycle")}${z.repeating > 0 ? " (repeating)" : ""}, ${count(z.faults, "fault")}`;
};

console.log(
  `real shrink pass on real hunts' failures, the simulator as servers: ${name} --faults ${faults.join(",")}, ` +
    `${wanted} failing schedules, budget ${REAL_SHRINK.maxRuns} candidates`,
);
const hunts = fc.sample(realHuntArb(t, faults, 8000, 4, "unfenced"), { numRuns: 40 * wanted, seed: 5 });
let shrunk = 0;
let minimal = 0;
let repeating = 0;
let runsInAll = 0;
let runsToSize = 0;
const lastsMs: number[] = [];
for (const s of hunts) {
  if (shrunk === wanted) break;
  const p = await probeViolation(t, s, "stale-write");
  if (!p.fails) continue;
  shrunk++;
  let runs = 0;
  const kept: { size: string; runs: number }[] = [];
  const r = await shrinkOnRealServers({ ...t, deterministic: false }, s, {
    kind: "stale-write",
    marginMs: 50,
    simFirst: false,
    evidence: p.evidence!,
    budget: { maxRuns: REAL_SHRINK.maxRuns, timeLimitMs: 600_000 },
    runOnServers: async (c) => {
      runs++;
      return (await t.run(c)).ops;
    },
    onSmaller: async (k) => {
      kept.push({ size: sizeOf(k), runs });
    },
  });
  const size = sizeOf(r.schedule);
  const z = scheduleSize(r.schedule);
  const at = kept.find((k) => k.size === size)?.runs ?? runs;
  runsInAll += runs;
  runsToSize += at;
  if (z.clients <= 2 && z.cycles <= 2 && z.faults <= 1 && z.repeating === 0) minimal++;
  if (z.repeating > 0) repeating++;
  // How long a replay of the result lasts: its failing run's last op (histories stamp ns).
  const lastOp = r.failingRun?.ops.at(-1);
  const lasts = lastOp === undefined ? "?" : `${(lastOp.time / 1e9).toFixed(1)} s`;
  lastsMs.push(lastOp === undefined ? 0 : lastOp.time / 1e6);
  console.log(
    `  ${sizeOf(s).padEnd(38)} → ${size.padEnd(38)} ${runs} runs; that size after run ${at}; its run lasts ${lasts}`,
  );
}
console.log(
  `  ${minimal} of ${shrunk} at ≤ 2 clients, ≤ 2 cycles, ≤ 1 fault, run once; ${repeating} still repeating; ` +
    `runs ${runsInAll} in all, ${runsToSize} until each had its final size; runs of the results last ${(lastsMs.reduce((a, b) => a + b, 0) / 1000).toFixed(1)} s in all`,
);
