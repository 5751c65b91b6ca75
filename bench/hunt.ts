/**
 * Time to the first safety violation of real runs that hunt (part of `npm run bench:real`):
 * for each case, a few seeds of `lockcheck run --seed s --duration 20s` and of `lockcheck
 * fuzz --seed s` (runs of 8 s on servers started once), each measured from the command's
 * start (servers included) to the first violation:
 *
 * - run: set-up time + the time into the run at which the first anomaly was complete (the
 *   history's own clock); a seed whose run shows none counts as not found;
 * - fuzz: wall time until fuzz returned its first failing run (no shrinking), within a
 *   time limit; a seed that hits it counts as not found.
 *
 * The median over seeds counts a not-found seed as infinitely slow. The fault categories are
 * `pause` unless BENCH_HUNT_FAULTS says others (e.g. `clock`).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { checkOps, SAFETY_CHECKERS } from "../src/checkers/index.js";
import { resolveTarget } from "../src/custom/module-target.js";
import type { FaultCategory } from "../src/generators/bounds.js";
import type { Op } from "../src/history/op.js";
import { runReal } from "../src/real/run.js";
import { fuzz } from "../src/runner/fuzz.js";
import { realHuntArb, realRunSchedule } from "../src/runner/fuzz-real.js";
import type { ResourceMode } from "../src/schedule/schedule.js";
import { realTargetFor } from "../src/targets/real.js";
import type { Target } from "../src/targets/target.js";

export interface HuntCase {
  /** A built-in real target, or `module:<path>` (a library adapter, docs/libraries.md). */
  target: string;
  resource: ResourceMode;
}

const RUN_MS = 20_000;
const FUZZ_LIMIT_MS = 60_000;

/** ms into the run at which the first violation was complete, or null if there was none. */
export function firstViolationMs(ops: readonly Op[]): number | null {
  let first: number | null = null;
  for (const v of checkOps(ops, SAFETY_CHECKERS)) {
    if (v.valid !== false) continue;
    for (const a of v.anomalies) {
      const at = Math.max(...a.ops.map((i) => ops[i]?.time ?? 0)) / 1e6;
      if (first === null || at < first) first = at;
    }
  }
  return first;
}

export async function realTarget(name: string): Promise<Target> {
  if (name.startsWith("module:")) {
    const r = await resolveTarget(name);
    if (!r.ok) throw new Error(`${name}: ${r.error.message}`);
    return r.value;
  }
  const t = realTargetFor(name);
  if (t === undefined) throw new Error(`no real target ${name}`);
  return t;
}

/** The hunts' fault categories: BENCH_HUNT_FAULTS (comma-separated), default `pause`. */
export function huntFaults(): FaultCategory[] {
  const named = (process.env.BENCH_HUNT_FAULTS ?? "").split(",").map((f) => f.trim());
  const chosen = named.filter((f) => f !== "");
  return (chosen.length === 0 ? ["pause"] : chosen) as FaultCategory[];
}

/** `lockcheck run --seed <seed> --duration 20s --faults <huntFaults()>`: ms to the first violation, or null. */
export async function runTimeToViolation(c: HuntCase, seed: number): Promise<number | null> {
  const target = await realTarget(c.target);
  const schedule = realRunSchedule(realHuntArb(target, huntFaults(), RUN_MS, 4, c.resource), seed, 0);
  const out = mkdtempSync(join(tmpdir(), "lockcheck-bench-hunt-"));
  try {
    const servers = target.name.startsWith("etcd:") ? "etcd" : "redis";
    // Stopping at the first violation changes nothing measured (the time is the history's own).
    const stopWhen = (ops: Op[]): boolean => firstViolationMs(ops) !== null;
    const r = await runReal(schedule, { algorithm: target.algorithm, servers }, { outDir: out, stopWhen });
    if (!r.ok) throw new Error(r.error);
    const at = firstViolationMs(r.value.ops);
    return at === null ? null : r.value.stats.setupMs + at;
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

/** `lockcheck fuzz --seed <seed> --faults <huntFaults()> --no-shrink`: ms until it returned a violation, or null. */
export async function fuzzTimeToViolation(
  c: HuntCase,
  seed: number,
): Promise<{ ms: number | null; runs: number }> {
  const started = performance.now();
  const r = await fuzz({
    target: await realTarget(c.target),
    resource: c.resource,
    seed,
    faults: huntFaults(),
    timeLimitMs: FUZZ_LIMIT_MS,
    shrink: false,
  });
  if (r.error !== null) throw new Error(r.error.message);
  return { ms: r.counterexample === null ? null : performance.now() - started, runs: r.runs };
}

/** Median with null (not found) as +∞. */
export function medianOrNull(xs: readonly (number | null)[]): number | null {
  const s = xs.map((x) => x ?? Number.POSITIVE_INFINITY).sort((a, b) => a - b);
  const m = s[Math.floor(s.length / 2)]!;
  return Number.isFinite(m) ? m : null;
}

const LIBRARIES = fileURLToPath(new URL("../../docs/examples/libraries/", import.meta.url));
const library = (file: string): HuntCase => ({ target: `module:${LIBRARIES}${file}`, resource: "unfenced" });

export const HUNT_CASES: readonly HuntCase[] = [
  { target: "redis:lease", resource: "unfenced" },
  { target: "redis:redlock-nocheck", resource: "unfenced" },
  { target: "etcd:lock", resource: "unfenced" },
  // The lock libraries of docs/libraries.md, as they are, in lockcheck's client processes.
  library("redlock-v5.mjs"),
  library("sesamecare-redlock.mjs"),
  library("redis-semaphore-mutex.mjs"),
  library("redis-semaphore-redlock-mutex.mjs"),
  library("etcd3-lock.mjs"),
];

/** `BENCH_HUNT_ONLY=redlock,etcd3` keeps the cases whose target contains one of the words. */
function selectedCases(): readonly HuntCase[] {
  const only = (process.env.BENCH_HUNT_ONLY ?? "").split(",").filter((w) => w.trim() !== "");
  return only.length === 0 ? HUNT_CASES : HUNT_CASES.filter((c) => only.some((w) => c.target.includes(w)));
}

const secs = (ms: number | null): string => (ms === null ? "not found" : `${(ms / 1000).toFixed(1)} s`);

/** `BENCH_HUNT_MODES=run` (or `fuzz`) measures one mode only; default both. */
function selectedModes(): { run: boolean; fuzz: boolean } {
  const modes = (process.env.BENCH_HUNT_MODES ?? "run,fuzz").split(",").map((m) => m.trim());
  return { run: modes.includes("run"), fuzz: modes.includes("fuzz") };
}

/** Prints the figures; `seeds` per case and mode. */
export async function printHunt(seeds: readonly number[]): Promise<void> {
  console.log(
    `time to first violation with --faults ${huntFaults().join(",")} (median of seeds ${seeds.join(",")}; run: --duration 20s; fuzz: 8 s runs, limit ${FUZZ_LIMIT_MS / 1000} s)`,
  );
  const modes = selectedModes();
  for (const c of selectedCases()) {
    const runs: (number | null)[] = [];
    if (modes.run) for (const s of seeds) runs.push(await runTimeToViolation(c, s));
    const fuzzes: { ms: number | null; runs: number }[] = [];
    if (modes.fuzz) for (const s of seeds) fuzzes.push(await fuzzTimeToViolation(c, s));
    const shown = c.target.startsWith("module:")
      ? `module:${c.target.slice(c.target.lastIndexOf("/") + 1)}`
      : c.target;
    const name = `${shown} (${c.resource})`.padEnd(44);
    const runPart = modes.run
      ? ` run  ${secs(medianOrNull(runs)).padStart(9)}  [${runs.map(secs).join(", ")}]`
      : "";
    const fuzzPart = modes.fuzz
      ? `   fuzz ${secs(medianOrNull(fuzzes.map((f) => f.ms))).padStart(9)}  [${fuzzes.map((f) => `${secs(f.ms)} (${f.runs} runs)`).join(", ")}]`
      : "";
    console.log(`  ${name}${runPart}${fuzzPart}`);
  }
}
