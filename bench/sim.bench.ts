/**
 * `npm run bench:sim`: how fast the simulator world runs, how quickly fuzzing finds the
 * classic violations, and how small and fast shrinking gets them. Every figure is measured
 * in this one run and printed next to its target.
 *
 * - Throughput on the standard schedule (5 clients × 20 lock cycles, 10 faults, 30 s of
 *   virtual time): schedules/s, simulated events/s, virtual seconds per wall second. Each
 *   target's rounds run in processes of their own (see `measureRoundHere`), in turn with the
 *   other targets'; rates are per CPU second of that process (its GC and compiler threads
 *   included), from the fastest of the rounds.
 * - All cores: the same rounds in one process per core at once (the rate is the sum of the
 *   processes' schedules per wall second), beside one process alone, and their ratio (the
 *   scaling; target ≥ 1.8× on 2 cores). Other jobs on the machine depress the all-core figure:
 *   the load average is printed with it.
 * - `fuzz --workers`: a short and a long campaign, each on 1 worker and on every core (worker
 *   threads, src/runner/workers/), in 3 rounds: the fastest runs per wall second of each and
 *   their ratio, and each round's own ratio; then where the fastest rounds' CPU went, thread
 *   by thread, and the ratio that CPU would allow on every core with none idle. Both on new
 *   threads (as one `lockcheck fuzz` gets them), and the short one again on threads kept warm
 *   from the search before (as gate's later targets get them).
 * - Time to first violation (search only, no shrinking), median over 20 seeds, for
 *   sim:lease/unfenced with pauses and sim:redlock/unfenced with clock faults (alone, and
 *   with partitions as in the published five-node timeline).
 * - The shrunk GC-pause counterexample (sim:lease/unfenced, client pauses) over 20 seeds:
 *   clients, lock operations, faults, and shrinking time.
 */
import { spawn, spawnSync } from "node:child_process";
import { availableParallelism, loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import type { FaultCategory } from "../src/generators/bounds.js";
import { fuzz } from "../src/runner/fuzz.js";
import { fuzzOnCores } from "../src/runner/workers/fuzz-parallel.js";
import { endIdleThreads, warmThreads } from "../src/runner/workers/pool.js";
import type { Schedule } from "../src/schedule/schedule.js";
import { findTarget } from "../src/targets/index.js";
import type { Target } from "../src/targets/target.js";
import { turnOffPretenuring } from "../src/util/v8-heap.js";
import { standardScheduleArb } from "./standard-schedule.js";
import { measureThreadCpu, type ThreadCpuSplit } from "./thread-cpu.js";

// As the CLI does (src/util/v8-heap.ts), in this process and in each round's.
turnOffPretenuring();

function target(name: string): Target {
  const t = findTarget(name);
  if (!t.ok) throw new Error(t.error.message);
  return t.value;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

/** One measured round: every schedule run once, timed in CPU and wall time. */
interface Round {
  cpuMs: number;
  wallMs: number;
  events: number;
  virtualMs: number;
  faults: number;
}

async function runRound(t: Target, schedules: readonly Schedule[]): Promise<Round> {
  let events = 0;
  let virtualMs = 0;
  let faults = 0;
  const wall0 = performance.now();
  const cpu0 = cpuMs();
  for (const s of schedules) {
    const r = await t.run(s);
    events += r.stats.events ?? 0;
    virtualMs += r.stats.virtualMs ?? 0;
    faults += s.faults.length;
  }
  return { cpuMs: cpuMs() - cpu0, wallMs: performance.now() - wall0, events, virtualMs, faults };
}

/** The targets measured for throughput, with the fault categories of their standard schedule. */
const THROUGHPUT_TARGETS: readonly (readonly [string, readonly FaultCategory[]])[] = [
  ["sim:lease", ["pause", "clock", "partition", "crash", "delay"]],
  ["sim:lease-token", ["pause", "clock", "partition", "crash", "delay"]],
  ["sim:redlock", ["pause", "clock", "partition", "crash", "delay"]],
  ["sim:redlock-nocheck", ["pause", "clock", "partition", "crash", "delay"]],
  ["sim:consensus", ["pause", "partition", "crash", "delay"]],
  ["sim:zk", ["pause", "partition", "crash", "delay"]],
];

/**
 * Schedules run before a round is timed, so that it times the steady state of a long campaign.
 * V8 goes on optimizing for a long while: after 200 schedules, background compilation still
 * took about a fifth of a sim:redlock round's CPU time (`--trace-opt`); after 1,000 it is
 * down to a few percent.
 */
const WARM_UP = 1000;

/**
 * One measured round, in a process of its own (`--round <target> <n>`): the target's `n`
 * standard schedules, run over and over to warm up (WARM_UP runs) and then once timed. A
 * process per target is how lockcheck runs (one `lockcheck fuzz --target …` at a time), so
 * no other target's code shares this one's JIT feedback or heap.
 */
async function measureRoundHere(name: string, n: number): Promise<Round> {
  const categories = THROUGHPUT_TARGETS.find(([t]) => t === name)?.[1];
  if (categories === undefined) throw new Error(`no throughput target ${name}`);
  const t = target(name);
  const schedules = fc.sample(standardScheduleArb(t, categories), { numRuns: n, seed: 1 });
  for (let i = 0; i < WARM_UP; i++) await t.run(schedules[i % schedules.length]!);
  return runRound(t, schedules);
}

function measureRound(name: string, n: number): Round {
  const child = spawnSync(process.execPath, [fileURLToPath(import.meta.url), "--round", name, String(n)], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  });
  if (child.status !== 0) throw new Error(`throughput round of ${name} failed (exit ${child.status})`);
  return JSON.parse(child.stdout) as Round;
}

/** A round in a process of its own, started without waiting (for rounds run side by side). */
function measureRoundAsync(name: string, n: number): Promise<Round> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [fileURLToPath(import.meta.url), "--round", name, String(n)], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => {
      out += d;
    });
    child.on("error", reject);
    child.on("close", (code) => {
      if (code !== 0) reject(new Error(`throughput round of ${name} failed (exit ${code})`));
      else resolve(JSON.parse(out) as Round);
    });
  });
}

/**
 * Per-core against all-core throughput of every target: in each of `rounds` rounds, the
 * target's round in one process alone, then in `cores` processes at once. Rates are
 * schedules per wall second; all cores is the sum over the processes. Each figure is from the
 * fastest round. `cpuEfficiency` compares schedules per CPU second of a process running beside
 * the others with one running alone: on an idle machine the scaling is about `cores` times it
 * (a busy machine depresses the wall-clock scaling, not this).
 */
async function scaling(n: number, rounds: number, cores: number) {
  const rows = [];
  for (const [name] of THROUGHPUT_TARGETS) {
    let one = 0;
    let all = 0;
    let oneCpu = 0;
    let sideCpu = 0;
    for (let round = 0; round < rounds; round++) {
      const alone = await measureRoundAsync(name, n);
      one = Math.max(one, (n * 1000) / alone.wallMs);
      oneCpu = Math.max(oneCpu, (n * 1000) / alone.cpuMs);
      const side = await Promise.all(Array.from({ length: cores }, () => measureRoundAsync(name, n)));
      all = Math.max(
        all,
        side.reduce((sum, r) => sum + (n * 1000) / r.wallMs, 0),
      );
      sideCpu = Math.max(sideCpu, side.reduce((sum, r) => sum + (n * 1000) / r.cpuMs, 0) / cores);
    }
    rows.push({ name, one, all, ratio: all / one, cpuEfficiency: sideCpu / oneCpu });
  }
  return rows;
}

function cpuOfProcessMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

/**
 * One `fuzz` campaign that finds no violation, on 1 worker and on `cores` workers, in `rounds`
 * rounds (1 worker, then `cores`, side by side in time): runs per wall second, and runs per CPU
 * second of the whole process (all its threads), whose ratio is the parallel search's
 * efficiency (worker start-up, each thread's own JIT warm-up, messages). Each rate is the
 * fastest round's, as for processes (other jobs only ever slow a round down); the ratio of
 * each round's pair is printed beside it.
 *
 * `threads`: "new" ends the pool's idle threads before each campaign on `cores` workers, so its
 * threads start cold, as in a `lockcheck fuzz` process; "kept" gives it the threads of a search
 * before it, warm, as gate's later targets and a test's later `fuzz` calls get them.
 */
async function fuzzScaling(
  name: string,
  runs: number,
  cores: number,
  rounds: number,
  threads: "new" | "kept",
) {
  const o = {
    target: target(name),
    resource: "fenced" as const,
    faults: ["pause", "delay"] as FaultCategory[],
    seed: 11,
    runs,
    shrink: false as const,
    fcShrink: { maxRuns: 0 },
  };
  await fuzz({ ...o, runs: 300 }); // warm-up of this thread
  const measure = async (workers: number) => {
    if (workers > 1 && threads === "new") await endIdleThreads();
    if (workers > 1 && threads === "kept" && warmThreads() < workers - 1) {
      await fuzzOnCores({ ...o, runs: 20_000 }, workers, { threadsAtOnce: true }); // warm-up of the threads
    }
    const cpu0 = cpuOfProcessMs();
    const split = measureThreadCpu();
    const r = await fuzzOnCores(o, workers);
    return {
      runs: r.runs,
      wallMs: r.elapsedMs,
      wall: (r.runs * 1000) / r.elapsedMs,
      cpu: (r.runs * 1000) / (cpuOfProcessMs() - cpu0),
      split: split(),
    };
  };
  type Measured = Awaited<ReturnType<typeof measure>>;
  const faster = (x: Measured | null, y: Measured) => (x === null || y.wall > x.wall ? y : x);
  let one: Measured | null = null;
  let all: Measured | null = null;
  let bestCpuOne = 0;
  let bestCpuAll = 0;
  const paired: number[] = [];
  let same = true;
  for (let round = 0; round < rounds; round++) {
    const a = await measure(1);
    const b = await measure(cores);
    same &&= a.runs === runs && b.runs === runs;
    paired.push(b.wall / a.wall);
    one = faster(one, a);
    all = faster(all, b);
    bestCpuOne = Math.max(bestCpuOne, a.cpu);
    bestCpuAll = Math.max(bestCpuAll, b.cpu);
  }
  if (one === null || all === null) throw new Error("fuzzScaling: no rounds");
  return {
    one: one.wall,
    all: all.wall,
    ratio: all.wall / one.wall,
    paired,
    cpuEfficiency: bestCpuAll / bestCpuOne,
    same,
    // Kept threads ran before the snapshot: their CPU cannot be told from V8's helpers'.
    where: threads === "new" ? whereTheCpuWent(one, all, cores) : null,
  };
}

/**
 * Where the fastest rounds' CPU went, by thread (bench/thread-cpu.ts), and the scaling that
 * CPU would allow if it were spread over every core without a moment idle: when the measured
 * ratio is near that bound, what keeps it low is CPU spent, not cores waiting.
 */
function whereTheCpuWent(
  one: { wallMs: number; split: ThreadCpuSplit | null },
  all: { wallMs: number; split: ThreadCpuSplit | null },
  cores: number,
): string | null {
  const a = one.split;
  const b = all.split;
  if (a === null || b === null) return null;
  const s = (ms: number) => `${fmt(ms / 1000, 1)} s`;
  const totalOne = a.main + a.helpers + a.started;
  const totalAll = b.main + b.helpers + b.started;
  const bound = one.wallMs / (totalAll / cores);
  return (
    `CPU of the fastest rounds: --workers 1 ${s(totalOne)} in ${s(one.wallMs)} (${fmt(totalOne / one.wallMs, 2)} cores busy: ` +
    `this thread ${s(a.main)}, compiler and GC threads ${s(a.helpers)}); --workers ${cores} ${s(totalAll)} ` +
    `(this thread ${s(b.main)}, worker threads ${s(b.started)}, compiler and GC threads ${s(b.helpers)}): ` +
    `that CPU spread over ${cores} cores without a moment idle would allow ${fmt(bound, 2)}×`
  );
}

/**
 * Throughput of every target over `rounds` rounds of the same `n` schedules, the targets taken
 * in turn within each round, so that a slow spell of this shared machine (other jobs only ever
 * slow a round down) hits them all alike. Rates come from each target's fastest round; the
 * median round is printed beside it.
 */
function throughputs(n: number, rounds: number) {
  const measured = THROUGHPUT_TARGETS.map(() => [] as Round[]);
  for (let round = 0; round < rounds; round++) {
    for (let i = 0; i < THROUGHPUT_TARGETS.length; i++) {
      measured[i]!.push(measureRound(THROUGHPUT_TARGETS[i]![0], n));
    }
  }
  return THROUGHPUT_TARGETS.map(([name], i) => {
    const byCpu = [...measured[i]!].sort((a, b) => a.cpuMs - b.cpuMs);
    const best = byCpu[0]!;
    return {
      name,
      schedulesPerS: (n * 1000) / best.cpuMs,
      medianSchedulesPerS: (n * 1000) / median(byCpu.map((x) => x.cpuMs)),
      schedulesPerWallS: (n * 1000) / Math.min(...measured[i]!.map((x) => x.wallMs)),
      eventsPerS: (best.events * 1000) / best.cpuMs,
      speedup: best.virtualMs / best.cpuMs,
      eventsPerSchedule: best.events / n,
      virtualSPerSchedule: best.virtualMs / n / 1000,
      faultsPerSchedule: best.faults / n,
    };
  });
}

async function timeToFirstViolation(
  name: string,
  resource: "unfenced",
  faults: FaultCategory[],
  seeds: number,
) {
  const times: number[] = [];
  const runs: number[] = [];
  let missed = 0;
  for (let seed = 1; seed <= seeds; seed++) {
    const r = await fuzz({
      target: target(name),
      resource,
      faults,
      seed,
      runs: 20_000,
      shrink: false,
      fcShrink: { maxRuns: 0 },
    });
    if (r.counterexample === null) {
      missed++;
      continue;
    }
    times.push(r.elapsedMs);
    runs.push(r.counterexample.foundAtRun);
  }
  return {
    name: `${name}/${resource} --faults ${faults.join(",")}`,
    medianMs: median(times),
    medianRuns: median(runs),
    maxMs: Math.max(...times),
    missed,
  };
}

async function shrunkGcPause(seeds: number) {
  const rows: { clients: number; lockOps: number; faults: number; shrinkMs: number }[] = [];
  for (let seed = 1; seed <= seeds; seed++) {
    const r = await fuzz({
      target: target("sim:lease"),
      resource: "unfenced",
      faults: ["pause"],
      faultBounds: { pauses: ["client"] },
      seed,
      runs: 20_000,
    });
    const ce = r.counterexample;
    if (ce === null) continue;
    const lockOps = ce.ops.filter(
      (o) => (o.f === "acquire" || o.f === "release") && o.type === "invoke",
    ).length;
    rows.push({
      clients: ce.schedule.clients.length,
      lockOps,
      faults: ce.schedule.faults.length,
      shrinkMs: ce.shrinkMs,
    });
  }
  return rows;
}

const fmt = (x: number, digits = 0) =>
  x.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits });
const verdict = (ok: boolean) => (ok ? "OK  " : "MISS");

const roundArg = process.argv.indexOf("--round");
if (roundArg >= 0) {
  const round = await measureRoundHere(process.argv[roundArg + 1]!, Number(process.argv[roundArg + 2]));
  process.stdout.write(JSON.stringify(round));
  process.exit(0);
}

/**
 * `npm run bench:sim -- throughput` runs only the throughput sections (per core, all cores);
 * `-- scaling` only the all-core one; `-- per-core` only the per-core one (for comparing two
 * builds, one after the other).
 */
const onlyPerCore = process.argv.includes("per-core");
const onlyThroughput = onlyPerCore || process.argv.includes("throughput");
const onlyScaling = process.argv.includes("scaling");

console.log("lockcheck simulator benchmark (rates per CPU second of one process, except where said)\n");
const ROUNDS = 5;
for (const r of onlyScaling ? [] : throughputs(200, ROUNDS)) {
  if (r.name === THROUGHPUT_TARGETS[0]![0]) {
    console.log("Throughput, standard schedule: 5 clients × 20 lock cycles, 10 faults, horizon 30 s");
    console.log(
      `  (${ROUNDS} rounds of 200 schedules per target, each round in a process of its own after ${WARM_UP} warm-up\n` +
        "   schedules, targets in turn; the fastest round, median in brackets)",
    );
  }
  console.log(
    `  ${verdict(r.schedulesPerS >= 500 && r.speedup >= 1000)} ${r.name.padEnd(19)} ${fmt(r.schedulesPerS).padStart(5)} schedules/CPU-s (bar ≥ 500, goal 1,000; median ${fmt(r.medianSchedulesPerS)}; ${fmt(r.schedulesPerWallS)}/wall-s)  ` +
      `${fmt(r.eventsPerS).padStart(9)} events/s  ${fmt(r.speedup).padStart(7)}× real time (target ≥ 1000×)  ` +
      `[${fmt(r.eventsPerSchedule)} events, ${fmt(r.virtualSPerSchedule, 1)} virtual s, ${fmt(r.faultsPerSchedule, 1)} faults per schedule]`,
  );
}

if (onlyPerCore) process.exit(0);

const cores = availableParallelism();
const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(", ");
console.log(
  `\nPer core and all cores (${cores}), standard schedule, schedules per wall second (fastest of 3 rounds)\n` +
    `  load average before: ${load()} (other jobs on this machine depress the all-core figures)`,
);
for (const r of await scaling(200, 3, cores)) {
  console.log(
    `  ${verdict(r.ratio >= 0.9 * cores)} ${r.name.padEnd(19)} 1 process ${fmt(r.one).padStart(5)}/s   ${cores} processes ${fmt(r.all).padStart(5)}/s   scaling ${fmt(r.ratio, 2)}× (target ≥ ${fmt(0.9 * cores, 1)}×); per CPU-s beside the others ${fmt(100 * r.cpuEfficiency)}% of alone`,
  );
}
// A short campaign (a few seconds: new threads' start-up and warm-up weigh) and a long one, on
// new threads; and the short one on threads kept from the search before.
for (const [runs, threads] of [
  [40_000, "new"],
  [160_000, "new"],
  [40_000, "kept"],
] as const) {
  const f = await fuzzScaling("sim:lease-token", runs, cores, 3, threads);
  console.log(
    `  ${verdict(f.ratio >= 0.9 * cores && f.same)} fuzz sim:lease-token (fenced) --faults pause,delay --runs ${runs}, ${threads === "new" ? "new threads" : "threads kept from the search before"}: --workers 1 ${fmt(f.one)} runs/s, --workers ${cores} ${fmt(f.all)} runs/s, scaling ${fmt(f.ratio, 2)}× (rounds: ${f.paired.map((x) => `${fmt(x, 2)}×`).join(", ")}); runs per CPU-s ${fmt(100 * f.cpuEfficiency)}% of 1 worker's${f.same ? "" : " (RUN COUNTS DIFFER OR A VIOLATION STOPPED IT)"}`,
  );
  if (f.where !== null) console.log(`       ${f.where}`);
}
console.log(`  load average after: ${load()}`);
if (onlyThroughput || onlyScaling) process.exit(0);

console.log("\nTime to first violation (search only), median over 20 seeds (target < 1 s)");
for (const [name, faults] of [
  ["sim:lease", ["pause"]],
  ["sim:redlock", ["clock"]],
  ["sim:redlock", ["clock", "partition"]],
] as const) {
  const r = await timeToFirstViolation(name, "unfenced", [...faults], 20);
  console.log(
    `  ${verdict(r.medianMs < 1000 && r.missed === 0)} ${r.name.padEnd(44)} median ${fmt(r.medianMs).padStart(5)} ms (${fmt(r.medianRuns)} runs), max ${fmt(r.maxMs)} ms, not found in 20,000 runs: ${r.missed}/20`,
  );
}

console.log("\nShrunk GC-pause counterexample (sim:lease/unfenced, client pauses), 20 seeds");
const rows = await shrunkGcPause(20);
const small = rows.filter((r) => r.clients <= 2 && r.lockOps <= 4 && r.faults === 1).length;
const shrinkMs = rows.map((r) => r.shrinkMs);
console.log(
  `  ${verdict(small === rows.length && Math.max(...shrinkMs) < 5000)} ${small}/${rows.length} within ≤ 2 clients, ≤ 4 lock operations, 1 fault; ` +
    `largest: ${Math.max(...rows.map((r) => r.clients))} clients, ${Math.max(...rows.map((r) => r.lockOps))} lock ops, ${Math.max(...rows.map((r) => r.faults))} faults`,
);
console.log(
  `       shrinking time median ${fmt(median(shrinkMs))} ms, max ${fmt(Math.max(...shrinkMs))} ms (target < 5 s)`,
);
