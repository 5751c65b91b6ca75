/**
 * `lockcheck gate`: the CI regression gate. Fuzz every configured target within its budget
 * and hold it to its expectation (`safe`: no violation found; `unsafe`: the known violation
 * found), and make every corpus entry get its recorded verdict again.
 *
 * Sharding: the work items (targets and corpus entries) are sorted by id and dealt round-robin,
 * so shard i of n always gets the same items, and the n shards together get each item once.
 * Each target's seed comes from the config, not the shard, so a target fuzzes the same
 * schedules whichever shard runs it.
 */
import { isAbsolute, join, relative } from "node:path";
import { SAFETY_CHECKERS } from "../../checkers/index.js";
import type { Verdict } from "../../checkers/verdict.js";
import { resolveRealTarget, resolveTarget } from "../../custom/module-target.js";
import { DEFAULT_FAULT_CATEGORIES } from "../../generators/bounds.js";
import type { Cluster } from "../../real/cluster-kind.js";
import type { DockerRunOptions } from "../../real/docker/world.js";
import {
  failureText,
  type GateReport,
  type GateResult,
  type Shard,
  type TargetResult,
} from "../../report/gate-result.js";
import type { JUnitCase, JUnitSuite } from "../../report/junit.js";
import { formatInputError } from "../../result.js";
import type { ServerPlacement } from "../../targets/target.js";
import { parseDuration } from "../../util/duration.js";
import type { FuzzResult } from "../fuzz.js";
import { placementFlags, saveReplayableRun } from "../run-folder.js";
import { fuzzOnCores } from "../workers/fuzz-parallel.js";
import type { GateConfig, GateTargetConfig } from "./gate-config.js";
import { DEFAULT_GATE_RUNS, gateTargetName } from "./gate-config.js";
import { type CorpusEntry, checkCorpusEntry } from "./gate-corpus.js";
import { ranOn } from "./ran-on.js";

export type GateItem =
  | { kind: "target"; id: string; name: string; config: GateTargetConfig }
  | { kind: "corpus"; id: string; name: string; entry: CorpusEntry };

export function planGate(config: GateConfig, corpus: readonly CorpusEntry[]): GateItem[] {
  const items: GateItem[] = [
    ...config.targets.map((t): GateItem => {
      const name = gateTargetName(t);
      return { kind: "target", id: `target:${name}`, name, config: t };
    }),
    ...corpus.map(
      (entry): GateItem => ({ kind: "corpus", id: `corpus:${entry.name}`, name: entry.name, entry }),
    ),
  ];
  return items.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

export function shardItems<T>(items: readonly T[], shard: Shard | null): T[] {
  if (shard === null) return [...items];
  return items.filter((_, k) => k % shard.count === shard.index - 1);
}

export interface GateEvents {
  itemStart?(item: GateItem, position: number, of: number): void;
  /** While a target is fuzzed: runs done, the run budget (if any), violations, a note. */
  itemProgress?(p: { done: number; total?: number; violations: number; shrinkRuns: number | null }): void;
  itemDone?(result: GateResult): void;
}

export interface GateRunOptions {
  /** Threads fuzzing each simulated target (src/runner/workers/); default 1. */
  workers?: number;
  /** Where real targets' and real corpus entries' servers run; default: the config's `cluster`. */
  cluster?: Cluster;
  /** With docker: images and Compose file (the replay commands printed repeat them). */
  docker?: DockerRunOptions;
}

/** `path` relative to the working folder when it is inside it (shorter to read and paste). */
function shortPath(path: string): string {
  const rel = relative(process.cwd(), path);
  return rel !== "" && !rel.startsWith("..") && !isAbsolute(rel) ? rel : path;
}

function slug(name: string): string {
  return name.replace(/[^a-zA-Z0-9-]+/g, "-").replace(/^-+|-+$/g, "") || "target";
}

async function runTarget(
  item: Extract<GateItem, { kind: "target" }>,
  config: GateConfig,
  events: GateEvents,
  workers: number,
  where: ServerPlacement,
): Promise<TargetResult> {
  const t = item.config;
  const started = Date.now();
  const faults = [...(t.faults ?? config.defaults.faults ?? DEFAULT_FAULT_CATEGORIES)];
  const seed = t.seed ?? config.seed;
  const base = {
    kind: "target" as const,
    name: item.name,
    target: t.target,
    ...(t.real === true ? { real: true as const } : {}),
    resource: t.resource ?? null,
    expect: t.expect,
    seed,
    faults,
  };
  const fail = (message: string): TargetResult => ({
    ...base,
    runs: 0,
    violations: 0,
    interrupted: false,
    elapsedMs: Date.now() - started,
    met: false,
    error: message,
  });

  const target =
    t.real === true
      ? await resolveRealTarget(t.target, config.baseDir)
      : await resolveTarget(t.target, config.baseDir, "target");
  if (!target.ok) return fail(formatInputError(target.error));
  if (t.resource !== undefined && !target.value.resources.includes(t.resource)) {
    return fail(
      `${target.value.name} supports resource ${target.value.resources.join(", ")}, not ${t.resource}`,
    );
  }
  const time = t.time ?? config.defaults.time;
  const timeLimitMs = time === undefined ? undefined : parseDuration(time, "time");
  if (timeLimitMs !== undefined && !timeLimitMs.ok) return fail(formatInputError(timeLimitMs.error));
  const runs = t.runs ?? config.defaults.runs ?? (timeLimitMs === undefined ? DEFAULT_GATE_RUNS : undefined);
  const clients = t.clients ?? config.defaults.clients;
  const resource = t.resource ?? target.value.resources[0];
  // Simulated targets have no servers to place.
  const placed = target.value.deterministic ? {} : where;

  let result: FuzzResult;
  try {
    result = await fuzzOnCores(
      {
        target: target.value,
        resource,
        seed,
        faults,
        ...(runs === undefined ? {} : { runs }),
        ...(timeLimitMs === undefined ? {} : { timeLimitMs: timeLimitMs.value }),
        ...(t.options === undefined ? {} : { options: t.options }),
        ...(clients === undefined
          ? {}
          : { workload: { maxClients: clients }, faultBounds: { maxClients: clients } }),
        // Real targets: runs at once, each on servers of its own.
        real: { parallel: workers, ...placed },
        // A canary's violation is expected: finding it is enough, shrinking it is wasted time.
        ...(t.expect === "unsafe" ? { shrink: false as const, fcShrink: { maxRuns: 0 } } : {}),
        onProgress: (p) =>
          events.itemProgress?.({
            done: p.runs,
            ...(runs === undefined ? {} : { total: runs }),
            violations: p.violations,
            shrinkRuns: p.phase === "shrink" ? p.shrinkRuns : null,
          }),
      },
      workers,
    );
  } catch (e) {
    return fail(`lockcheck failed: ${(e as Error).message}`);
  }
  const common = {
    ...base,
    ranOn: ranOn(target.value, where),
    resource,
    runs: result.runs,
    interrupted: result.interrupted,
    ...(result.libraryCrashes === undefined ? {} : { libraryCrashes: result.libraryCrashes }),
  };
  if (result.error !== null) {
    return {
      ...common,
      violations: 0,
      elapsedMs: Date.now() - started,
      met: false,
      error: `lockcheck failed: ${result.error.message}`,
    };
  }
  const ce = result.counterexample;
  if (ce === null) {
    return { ...common, violations: 0, elapsedMs: Date.now() - started, met: t.expect === "safe" };
  }
  const dir = shortPath(join(config.output, slug(item.name)));
  // A module's real run folder names the module in its schedule.json: replay finds it there.
  const replay = `lockcheck replay ${join(dir, "schedule.json")}${t.target.startsWith("module:") && t.real !== true ? ` --target ${target.value.name}` : ""}${placementFlags(placed)}`;
  const saved = await saveReplayableRun(dir, ce, replay);
  const outcome: TargetResult = {
    ...common,
    violations: 1,
    elapsedMs: Date.now() - started,
    met: t.expect === "unsafe",
    counterexample: { dir, replay, foundAtRun: ce.foundAtRun, flagged: flaggedBy(ce.verdicts) },
  };
  if (!saved.ok) outcome.error = `violation found, but saving it failed: ${formatInputError(saved.error)}`;
  return outcome;
}

/** Each safety checker that failed, with the kinds of its anomalies: `token-order (token-reuse)`. */
export function flaggedBy(verdicts: readonly Verdict[]): string[] {
  const safety: readonly string[] = SAFETY_CHECKERS;
  return verdicts
    .filter((v) => v.valid === false && safety.includes(v.checker))
    .map((v) => {
      const kinds = [...new Set(v.anomalies.map((a) => a.kind))];
      return kinds.length === 0 ? v.checker : `${v.checker} (${kinds.join(", ")})`;
    });
}

/** Runs `items` (already sharded) in order. Never rejects: each failure is a result. */
export async function runGate(
  items: readonly GateItem[],
  config: GateConfig,
  shard: Shard | null,
  events: GateEvents = {},
  options: GateRunOptions = {},
): Promise<GateReport> {
  const started = Date.now();
  const results: GateResult[] = [];
  const cluster = options.cluster ?? config.cluster;
  const where: ServerPlacement =
    cluster === "docker"
      ? { cluster, ...(options.docker === undefined ? {} : { docker: options.docker }) }
      : {};
  for (const [i, item] of items.entries()) {
    events.itemStart?.(item, i + 1, items.length);
    const r =
      item.kind === "target"
        ? await runTarget(item, config, events, options.workers ?? 1, where)
        : await checkCorpusEntry(item.entry, where);
    results.push(r);
    events.itemDone?.(r);
  }
  return { version: 1, shard, results, ok: results.every((r) => r.met), elapsedMs: Date.now() - started };
}

export function gateJUnitSuites(report: GateReport): JUnitSuite[] {
  const toCase = (r: GateResult): JUnitCase => {
    const c: JUnitCase = {
      name: r.kind === "target" ? `${r.name} is ${r.expect}` : r.name,
      classname: r.kind === "target" ? "lockcheck.targets" : "lockcheck.corpus",
      timeSeconds: r.elapsedMs / 1000,
      outcome: r.met
        ? "passed"
        : r.error !== undefined && (r.kind === "corpus" || r.counterexample === undefined)
          ? "error"
          : "failed",
    };
    if (!r.met) Object.assign(c, failureText(r));
    const on = r.ranOn === undefined ? "" : ` on ${r.ranOn}`;
    if (r.kind === "target") {
      c.output = `runs${on} ${r.runs}, violations ${r.violations}, seed ${r.seed}${r.counterexample ? `, saved ${r.counterexample.dir}` : ""}`;
    } else
      c.output = `${r.mode}${on}; ${Object.entries(r.actual)
        .map(([k, v]) => `${k}=${v}`)
        .join(", ")}`;
    return c;
  };
  const props = report.shard ? { shard: `${report.shard.index}/${report.shard.count}` } : undefined;
  const suite = (name: string, kind: GateResult["kind"]): JUnitSuite => ({
    name,
    cases: report.results.filter((r) => r.kind === kind).map(toCase),
    ...(props ? { properties: props } : {}),
  });
  return [suite("lockcheck targets", "target"), suite("lockcheck corpus", "corpus")];
}

/**
 * The JUnit suites of a gate that was interrupted: the items that finished, as in
 * `gateJUnitSuites`, and the item that was running as an error (it has no result).
 */
export function interruptedGateJUnitSuites(
  done: readonly GateResult[],
  running: GateItem | null,
  shard: Shard | null,
): JUnitSuite[] {
  const suites = gateJUnitSuites({ version: 1, shard, results: [...done], ok: false, elapsedMs: 0 });
  if (running === null) return suites;
  const target = running.kind === "target";
  suites[target ? 0 : 1]!.cases.push({
    name: target ? `${running.name} is ${running.config.expect}` : running.name,
    classname: target ? "lockcheck.targets" : "lockcheck.corpus",
    timeSeconds: 0,
    outcome: "error",
    message: "interrupted (SIGINT or SIGTERM) before this item finished: no result",
  });
  return suites;
}

/** Combines the reports of the shards of one gate. */
export function mergeGateReports(reports: readonly GateReport[]): GateReport {
  const id = (r: GateResult) => `${r.kind}:${r.name}`;
  const results = reports
    .flatMap((r) => r.results)
    .sort((a, b) => (id(a) < id(b) ? -1 : id(a) > id(b) ? 1 : 0));
  return {
    version: 1,
    shard: null,
    results,
    ok: results.every((r) => r.met),
    elapsedMs: Math.max(0, ...reports.map((r) => r.elapsedMs)),
  };
}
