/**
 * `node dist/bench/sim-to-real.bench.js [seeds] [replays] [faults] [pairs] [partition-mode]`: how often a shrunk
 * simulator counterexample also fails on real servers. For sim:lease → redis:lease,
 * sim:redlock → redis:redlock and sim:consensus → etcd:lock (unfenced; faults default `pause`,
 * e.g. `pause,clock`; clock faults are left out for etcd, which ignores them; `pairs` picks
 * some by simulator target, e.g. `sim:consensus`), fuzz seeds 1..seeds (default 10) in the simulator,
 * shrunk to the bare minimum (`marginMs: false`, lockcheck's shrinking before timing margins)
 * and with margins (the default); each shrunk schedule is then replayed `replays` times
 * (default 1) on the real target. Prints one row per seed and the ratio of failing replays,
 * both ways measured in the same run. `partition-mode` (`cut`, the default, or `blackhole`) is
 * what a partition does on the real servers. Needs redis-server, cc and (for etcd:lock) etcd.
 */
import type { FaultCategory } from "../src/generators/bounds.js";
import { runAndCheck } from "../src/runner/execute.js";
import { fuzz } from "../src/runner/fuzz.js";
import { findTarget } from "../src/targets/index.js";

const [seeds = 10, replays = 1] = process.argv.slice(2, 4).map(Number);
const faults = (process.argv[4] ?? "pause").split(",") as FaultCategory[];

function target(name: string) {
  const t = findTarget(name);
  if (!t.ok) throw new Error(t.error.message);
  return t.value;
}

const ALL_PAIRS = [
  ["sim:lease", "redis:lease"],
  ["sim:redlock", "redis:redlock"],
  ["sim:consensus", "etcd:lock"],
] as const;
const chosen = process.argv[5]?.split(",");
const partitionMode = process.argv[6] === "blackhole" ? ({ partitionMode: "blackhole" } as const) : {};
const pairs = ALL_PAIRS.filter(([sim]) => chosen === undefined || chosen.includes(sim));

for (const [simName, realName] of pairs) {
  const pairFaults = realName.startsWith("etcd:") ? faults.filter((f) => f !== "clock") : faults;
  const sim = target(simName);
  const real = target(realName);
  const tally = { exact: { failed: 0, runs: 0 }, margins: { failed: 0, runs: 0 } };
  for (let seed = 1; seed <= seeds; seed++) {
    const cells: string[] = [];
    for (const mode of ["exact", "margins"] as const) {
      const r = await fuzz({
        target: sim,
        resource: "unfenced",
        faults: pairFaults,
        seed,
        runs: 5000,
        ...(mode === "exact" ? { marginMs: false as const } : {}),
      });
      const ce = r.counterexample;
      if (ce === null) {
        cells.push(`${mode}: no violation`);
        continue;
      }
      let failed = 0;
      for (let k = 0; k < replays; k++) {
        const again = await runAndCheck(real, { ...ce.schedule, target: realName, ...partitionMode });
        if (again.violation) failed++;
      }
      tally[mode].failed += failed;
      tally[mode].runs += replays;
      cells.push(`${mode} (${ce.shrink}): ${failed}/${replays} fail on ${realName}`);
    }
    console.log(`${simName} seed ${String(seed).padStart(2)}  ${cells.join("   ")}`);
  }
  const ratio = (t: { failed: number; runs: number }) =>
    `${t.failed}/${t.runs} (${t.runs === 0 ? "–" : Math.round((100 * t.failed) / t.runs)}%)`;
  console.log(
    `${simName} → ${realName}: replays that fail — bare minimum ${ratio(tally.exact)}, with margins ${ratio(tally.margins)}\n`,
  );
}
