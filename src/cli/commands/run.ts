/**
 * `lockcheck run --target redis:lease|redis:lease-token|redis:redlock|etcd:lock …`: one run
 * of a schedule against real servers that lockcheck starts itself on 127.0.0.1, with real
 * faults; writes the run folder (schedule.json, history.jsonl, verdict.json, report.html,
 * events/) and exits like `check`: 0 valid, 1 violation, 2 unknown verdict or bad input.
 *
 * The schedule comes from `--schedule` (e.g. one saved by `fuzz` in the simulator: its world
 * prefix is replaced) or is generated from `--seed` with the same generators as `fuzz`.
 */
import { randomInt } from "node:crypto";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { Command } from "commander";
import { FAULT_CATEGORIES, REAL_TARGETS } from "../../api/catalog.js";
import {
  type ExternalServers,
  ignoredFaultsLine,
  type LibraryRunFlags,
  type RealRunAsk,
} from "../../api/real-run-plan.js";
import { type RealAttempts, realRunAttempts } from "../../api/run-real.js";
import type { Fault } from "../../api/types.js";
import { colorsFor } from "../../report/colors.js";
import { realProgressLine } from "../../report/real-progress-line.js";
import { type InputError, ok, type Result } from "../../result.js";
import { parseDuration } from "../../util/duration.js";
import { exitCodeOf, printInputError } from "../errors.js";
import {
  parseFaultsFlag,
  parsePartitionModeFlag,
  parseResourceFlag,
  positiveIntArg,
  seedArg,
  wholeNumberArg,
} from "../flags.js";
import { onInterrupt } from "../interrupt.js";
import { addPlacementOptions, type PlacementFlags, parsePlacementFlags } from "../placement-flags.js";
import { formatVerdictLines } from "./replay.js";

interface RunFlags extends LibraryRunFlags, PlacementFlags {
  target?: string;
  resource?: string;
  faults: string;
  seed?: number;
  duration: string;
  clients?: number;
  attempts: number;
  schedule?: string;
  out?: string;
  partitionMode?: string;
  redisServer?: string;
  etcd?: string;
  quiet?: boolean;
  json?: boolean;
}

const REAL_NAMES = REAL_TARGETS.map((t) => t.name);

export function runCommand(): Command {
  const command = new Command("run")
    .description(
      "run a schedule against real redis-server / etcd processes with real faults, and check the history",
    )
    .option(
      "--target <name>",
      `real target: ${REAL_NAMES.join(", ")}, or module:./your-lock.mjs (a lock algorithm or a library adapter: docs/custom-locks.md, docs/libraries.md) (default: from --schedule)`,
    )
    .option(
      "--resource <mode>",
      "protected resource: unfenced, fenced, or fenced-txn (etcd only) (default: the target's)",
    )
    .option(
      "--faults <list>",
      `fault categories for a generated schedule: ${FAULT_CATEGORIES.join(",")} (or none)`,
      "pause",
    )
    .option("--seed <n>", "seed for the generated schedule (default: random, printed)", seedArg)
    .option(
      "--duration <d>",
      "how long clients keep cycling and faults keep coming, e.g. 20s (the run stops at twice this)",
      "20s",
    )
    .option(
      "--clients <n>",
      "most clients in a generated schedule (default 4)",
      wholeNumberArg(1, "expected a positive integer"),
    )
    .option(
      "--schedule <file>",
      "run this schedule (schedule.json or a run folder) instead of generating one",
    )
    .option("--out <dir>", "run folder (default lockcheck-out/<target>-<seed>-real)")
    .option(
      "--attempts <n>",
      "run the schedule up to n times, each on fresh servers with its own run folder, stopping at the first that fails: real runs are not deterministic, so this says how reliably a counterexample comes back (attempt k of --out <dir> is saved in <dir>-attempt-<k>)",
      positiveIntArg("--attempts"),
      1,
    )
    .option(
      "--partition-mode <mode>",
      "what a two-way partition does to TCP: cut (reset; messages lost) or blackhole (held until the heal); saved in the schedule (default: the schedule's, else cut)",
    )
    .option("--redis-server <path>", "redis-server binary (default: $LOCKCHECK_REDIS_SERVER, then PATH)")
    .option("--etcd <path>", "etcd binary (default: $LOCKCHECK_ETCD, then PATH)");
  return addPlacementOptions(
    command,
    "where servers run: process (local processes) or docker (containers)",
    "process",
  )
    .option(
      "--redis-endpoints <list>",
      "library adapters: use these Redis servers you run (host:port,…) instead of starting them; only client faults apply",
    )
    .option(
      "--etcd-endpoints <list>",
      "library adapters: use these etcd members you run (host:port,…) instead of starting them; only client faults apply",
    )
    .option("--allow-ignored-faults", "run even when some requested faults cannot reach the target")
    .option("--module-options <json>", "options for a module target's connect (recorded in the schedule)")
    .option("--quiet", "no progress output")
    .option("--json", "print the verdicts as JSON on stdout")
    .addHelpText(
      "after",
      [
        "",
        "Servers run on free 127.0.0.1 ports in temp dirs and are removed on exit, error, SIGINT and SIGTERM.",
        "Each client is its own process: a client pause is SIGSTOP/SIGCONT (its lease keep-alives freeze too).",
        "Faults: pause/resume of clients and servers (server:leader = the etcd leader), kill/restart (Redis",
        "restarts empty; the resource is durable), partitions and delays on per-link TCP proxies, and clock",
        "jumps/drift: on clients, and on redis-servers through an LD_PRELOAD shim built with cc at set-up.",
        "etcd ignores clock faults (Go does not read the clock through libc; its leases use a monotonic clock).",
        "Partitions between two servers (etcd peers) are not proxied: they are recorded as unsupported.",
        "The schedule's latency and loss options do not apply: the network is the real loopback.",
        "",
        "--cluster docker: the same targets, schedules, faults and checks with servers in Docker containers",
        "(the topologies of docker/compose.*.yml, ports published on 127.0.0.1, labelled lockcheck=1 and removed",
        "on exit, error, SIGINT, SIGTERM, and by a watcher after SIGKILL; `lockcheck clean` removes leftovers).",
        "A server pause is docker pause (cgroup freezer); kill/restart act on the container; client-side",
        "partitions and delays use the same proxies; a partition of one etcd member from all the others",
        "isolates it from its peers (network disconnect; clients still reach it). Clock offsets are not",
        "available in containers: they share the host's clock, so a schedule with a clock fault on a server",
        "or the resource is rejected.",
        "",
        "Exit status: 0 valid, 1 a violation was found, 2 unknown verdict or bad input.",
      ].join("\n"),
    )
    .action(async (flags: RunFlags) => {
      process.exitCode = await runReal(flags);
    });
}

/** What to run, from the flags; the faults and length of a generated schedule only without --schedule. */
function askOf(flags: RunFlags): Result<Omit<RealRunAsk, "placement">, InputError> {
  const resource = parseResourceFlag(flags.resource);
  if (!resource.ok) return resource;
  const partitionMode = parsePartitionModeFlag(flags.partitionMode);
  if (!partitionMode.ok) return partitionMode;
  let generate: RealRunAsk["generate"];
  if (flags.schedule === undefined) {
    const faults = parseFaultsFlag(flags.faults);
    if (!faults.ok) return faults;
    const duration = parseDuration(flags.duration, "--duration");
    if (!duration.ok) return duration;
    generate = {
      faults: faults.value,
      seed: flags.seed ?? randomInt(0, 0x7fffffff),
      durationMs: duration.value,
      clients: flags.clients ?? 4,
    };
  }
  return ok({
    ...(flags.target === undefined ? {} : { target: flags.target }),
    ...(flags.schedule === undefined ? {} : { schedule: flags.schedule }),
    ...(resource.value === undefined ? {} : { resource: resource.value }),
    ...(generate === undefined ? {} : { generate }),
    ...(flags.out === undefined ? {} : { out: flags.out }),
    ...(flags.redisEndpoints === undefined ? {} : { redisEndpoints: flags.redisEndpoints }),
    ...(flags.etcdEndpoints === undefined ? {} : { etcdEndpoints: flags.etcdEndpoints }),
    ...(flags.allowIgnoredFaults === undefined ? {} : { allowIgnoredFaults: flags.allowIgnoredFaults }),
    ...(flags.moduleOptions === undefined ? {} : { moduleOptions: flags.moduleOptions }),
    ...(partitionMode.value === undefined ? {} : { partitionMode: partitionMode.value }),
  });
}

async function runReal(flags: RunFlags): Promise<number> {
  const errc = colorsFor(process.stderr);
  const asked = askOf(flags);
  if (!asked.ok) return printInputError(asked.error);
  const ask = asked.value;
  const quiet = flags.quiet === true || flags.json === true;
  const say = (line: string): void => {
    if (!quiet) process.stderr.write(`${line}\n`);
  };
  const placement = parsePlacementFlags(flags, say);
  if (!placement.ok) return printInputError(placement.error);
  let external: ExternalServers | null = null;
  let ignored: readonly Fault[] = [];
  let runDir: string | null = null;
  const stopListening = onInterrupt(() => interruptedRunLines(runDir));
  const r = await realRunAttempts(ask, flags.attempts, {
    ...(flags.redisServer === undefined ? {} : { redisServer: flags.redisServer }),
    ...(flags.etcd === undefined ? {} : { etcd: flags.etcd }),
    ...placement.value,
    onPlanned: (plan) => {
      ({ external, ignored } = plan);
      const { target, schedule, outDir } = plan;
      runDir = outDir;
      say(
        `run ${target.name} (${schedule.resource}), seed ${schedule.seed}: ${schedule.clients.length} client${schedule.clients.length === 1 ? "" : "s"}, ${schedule.faults.length} fault${schedule.faults.length === 1 ? "" : "s"}${schedule.partitionMode === "blackhole" ? " (partitions black-hole)" : ""} → ${outDir}`,
      );
    },
    onProgress: (p) => say(realProgressLine(p)),
    onRan: (warnings) => {
      for (const w of warnings) say(`${errc.yellow("warning")}: ${w}`);
      if (external !== null && ignored.length > 0)
        say(`${errc.yellow("warning")}: ${ignoredFaultsLine(external, ignored)}`);
    },
    onAttempt: (attempt, { plan, report }) =>
      say(
        `attempt ${attempt} of ${flags.attempts}: ${report.valid === true ? "valid" : "not decided"} (saved ${plan.outDir}); running it again`,
      ),
  }).finally(stopListening);
  if (!r.ok) return printInputError(r.error);
  const { target, schedule, outDir, rerunCommand: again, shrinkCommand, failedBefore } = r.value.plan;
  const ext = r.value.plan.external;
  const { valid, verdicts, brokenClients: broken, crashedByLibrary: crashed, ops, stats: s } = r.value.report;
  const { attempts } = r.value;
  // A violation found stands; a "valid" of a run whose clients could not be driven does not.
  const code = broken.length > 0 && valid !== false ? 2 : exitCodeOf(valid);
  if (flags.json === true) {
    process.stdout.write(
      `${JSON.stringify({
        valid,
        verdicts,
        ops: ops.length,
        out: outDir,
        stats: s,
        ...(ext === null ? {} : { servers: ext.flag, ignoredFaults: ignored.length }),
        ...(broken.length === 0 ? {} : { brokenClients: broken }),
        ...(crashed.length === 0 ? {} : { crashedByLibrary: crashed }),
        ...(attempts.limit === 1 ? {} : { attempts }),
      })}\n`,
    );
    return code;
  }
  const c = colorsFor(process.stdout);
  const lines = [
    `${target.name} (${schedule.resource}), seed ${schedule.seed}: ${ops.length} ops in ${(s.runMs / 1000).toFixed(1)} s (set-up ${(s.setupMs / 1000).toFixed(1)} s)`,
    ...formatVerdictLines(verdicts, c, join(outDir, "verdict.json")),
    ...(crashed.length === 0
      ? []
      : [
          `${c.yellow("crashed by library")} ${crashed.join(", ")}: your library threw outside a call (warnings above), which ended the process as it would end your service; the rest of ${crashed.length === 1 ? "its" : "their"} workload was not tested`,
        ]),
    ...(ext === null
      ? []
      : [`on your servers (${ext.flag}): only client faults applied; ignoredFaults: ${ignored.length}`]),
    ...(broken.length === 0 || valid === false
      ? []
      : [
          `${c.red("not trusted")}: ${broken.join(", ")} stopped on an error (warnings above), so part of the workload never ran; exit 2`,
        ]),
    `saved ${outDir} (history.jsonl, verdict.json, report.html); run it again: ${again}`,
    // Shrinking starts servers of its own: not offered for a run on the user's servers.
    ...(valid === false && shrinkCommand !== null
      ? [`shrink it to the smallest schedule that still fails here: ${shrinkCommand}`]
      : []),
    ...(attempts.limit === 1 ? [] : [attemptsLine(attempts)]),
    ...(failedBefore === null || valid !== true
      ? []
      : [
          `${c.yellow(attempts.made === 1 ? "passed this time" : `passed ${attempts.made} times`)}: ${failedBefore} failed before (its verdict.json says so, and its history is kept there). A run on real servers is not deterministic: the faults must hit the same narrow window again. ${attempts.limit === 1 ? "Run it again to see how often it fails (--attempts <n> runs it up to n times)." : "Try more attempts to see how often it fails."}`,
        ]),
  ];
  process.stdout.write(`${lines.join("\n")}\n`);
  return code;
}

/** What an interrupted real run says: where its partial history is, once the undo has written it. */
function interruptedRunLines(dir: string | null): string[] {
  if (dir === null) return ["interrupted before the run started"];
  const history = join(dir, "history.jsonl");
  if (!existsSync(history)) return [`interrupted before the clients started: nothing recorded in ${dir}`];
  return [
    `interrupted: the history so far is in ${history} (not checked); check it with: lockcheck check ${history}`,
  ];
}

/** How the attempts of `--attempts <n>` went, in a line. */
function attemptsLine(a: RealAttempts): string {
  if (a.failedAt !== null) return `failed on attempt ${a.failedAt} of ${a.limit}`;
  if (a.made < a.limit)
    return `stopped after attempt ${a.made} of ${a.limit}: its clients could not be driven`;
  return `passed all ${a.limit} attempts`;
}
