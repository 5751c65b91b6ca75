/**
 * `node dist/bench/counterexample.bench.js [faults] [seeds] [replays]`: from a library's bug
 * found on real servers to a counterexample that fails again. For each library adapter of
 * docs/libraries.md (and the built-in real targets), each seed (default 1,2) runs `lockcheck
 * fuzz --seed s --faults <faults>` (default `pause`; 8-s runs, search limit 60 s) with its
 * shrinking as a user gets it (real targets: 2 minutes by default), then replays the saved
 * counterexample `replays` times (default 5) on fresh servers, as `lockcheck replay` does, and
 * counts the replays that show the same violation again.
 *
 * One row per target and seed: which run of the search found it, how long the command took (its
 * search, shrinking and servers; not the replays) and its shrinking, whether that stopped at its
 * budget, the counterexample's size, and its replays that failed. The last
 * line adds them up. BENCH_HUNT_ONLY=word,… keeps the targets whose name contains a word, as in
 * bench:real. Needs redis-server and etcd on PATH; takes minutes per row.
 */
import { finishingLine } from "../src/api/finishing-steps.js";
import type { FaultCategory } from "../src/generators/bounds.js";
import { fuzz } from "../src/runner/fuzz.js";
import { probeViolation, violationKind } from "../src/runner/same-violation.js";
import { scheduleSize } from "../src/runner/schedule-size.js";
import type { Schedule } from "../src/schedule/schedule.js";
import { HUNT_CASES, realTarget } from "./hunt.js";

const SEARCH_LIMIT_MS = 60_000;

const faults = (process.argv[2] ?? "pause").split(",") as FaultCategory[];
const seeds = (process.argv[3] ?? "1,2").split(",").map(Number);
const replays = Number(process.argv[4] ?? 5);
const only = (process.env.BENCH_HUNT_ONLY ?? "").split(",").filter((w) => w.trim() !== "");
const cases =
  only.length === 0 ? HUNT_CASES : HUNT_CASES.filter((c) => only.some((w) => c.target.includes(w)));

const secs = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;
const shown = (target: string): string =>
  target.startsWith("module:") ? `module:${target.slice(target.lastIndexOf("/") + 1)}` : target;

function size(s: Schedule): string {
  const z = scheduleSize(s);
  const kinds = s.faults.map((f) => f.kind).join("+");
  return `${z.clients} clients, ${z.cycles} cycles${z.repeating > 0 ? " (repeating)" : ""}, ${z.faults} faults${kinds === "" ? "" : ` (${kinds})`}`;
}

console.log(
  `found → shrunk → replayed: --faults ${faults.join(",")}, seeds ${seeds.join(",")}, search limit ${SEARCH_LIMIT_MS / 1000} s, ${replays} replays each`,
);
let found = 0;
let tried = 0;
let replayed = 0;
let failedAgain = 0;
for (const c of cases) {
  for (const seed of seeds) {
    tried++;
    const target = await realTarget(c.target);
    const started = performance.now();
    const r = await fuzz({ target, resource: c.resource, seed, faults, timeLimitMs: SEARCH_LIMIT_MS });
    if (r.error !== null) throw new Error(`${c.target} seed ${seed}: ${r.error.message}`);
    const name = `${shown(c.target)} seed ${seed}`.padEnd(44);
    const cx = r.counterexample;
    if (cx === null) {
      console.log(`  ${name} not found in ${r.runs} runs`);
      continue;
    }
    found++;
    const kind = violationKind(cx.verdicts);
    if (kind === null) {
      console.log(
        `  ${name} found in run ${cx.foundAtRun}, but its saved run shows no violation (shrink: ${cx.shrink})`,
      );
      continue;
    }
    let again = 0;
    const replaysStarted = performance.now();
    for (let i = 0; i < replays; i++) if ((await probeViolation(target, cx.schedule, kind)).fails) again++;
    const replaysMs = performance.now() - replaysStarted;
    replayed += replays;
    failedAgain += again;
    const tookMs = performance.now() - started - replaysMs;
    console.log(
      `  ${name} ${kind} in run ${cx.foundAtRun}, ${secs(tookMs)} in all; shrink ${cx.shrink} ${secs(cx.shrinkMs)}${cx.budgetExhausted === true ? " (at its budget)" : ""} → ${size(cx.schedule)}; replays failed ${again} of ${replays}`,
    );
    const last = cx.finishing === undefined ? null : finishingLine(cx.finishing);
    if (last !== null) console.log(`      ${last}`);
    if (cx.schedule.faults.length > 0)
      console.log(`      faults: ${cx.schedule.faults.map((f) => JSON.stringify(f)).join(" ")}`);
  }
}
console.log(
  `  found ${found} of ${tried}; their counterexamples failed ${failedAgain} of ${replayed} replays (${replayed === 0 ? "–" : `${Math.round((100 * failedAgain) / replayed)}%`})`,
);
