/**
 * One run of a schedule against real servers: start the world (servers, resource, proxies),
 * start one child process per client, release them together, inject the schedule's faults,
 * wait until every client is done (or 2 × horizon), then assemble the history from what the
 * processes wrote down, and tear everything down.
 *
 * Teardown happens on every path: normal end, error, and SIGINT/SIGTERM (through the undo
 * list, which also writes the partial history). After a SIGKILL of this process the reaper
 * kills what is left and the clients exit when their IPC channel closes; the events files
 * on disk still hold the partial history (`lockcheck`'s merge can be rerun on them).
 */

import { randomBytes } from "node:crypto";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Op } from "../history/op.js";
import type { LockAlgorithm } from "../locks/lock.js";
import { err, formatInputError, ok, type Result } from "../result.js";
import { changesServerClock } from "../schedule/faults/index.js";
import { withModuleRelativeTo } from "../schedule/module-path.js";
import type { Schedule } from "../schedule/schedule.js";
import { type ClientFleet, type LibraryCrash, startClients } from "./clients.js";
import { findBinary } from "./cluster/binaries.js";
import type { Cluster } from "./cluster-kind.js";
import type { DockerRunOptions } from "./docker/world.js";
import { mergeHistory, writeHistoryAtomically } from "./history.js";
import type { Reaper } from "./hygiene/reaper.js";
import { startReaper } from "./hygiene/reaper.js";
import { registerUndo } from "./hygiene/undo.js";
import { markLateWrites } from "./late-writes.js";
import { createNemesis, type Nemesis } from "./nemesis.js";
import type { SharedServers } from "./shared-world.js";
import { ensureClockShim } from "./shim/build.js";
import { type RealWorld, type ServerKind, startWorld, type WorldSpec } from "./world.js";

export interface RealTargetSpec {
  algorithm: LockAlgorithm;
  servers: ServerKind;
}

export interface RealRunOptions {
  /** Folder for schedule.json, events/ and history.jsonl (created if missing). */
  outDir: string;
  redisServer?: string;
  etcd?: string;
  cc?: string;
  /** Called about once a second while the clients run. */
  onProgress?: (p: RealProgress) => void;
  /** Start the reaper (default true); only tests of the reaper itself turn it off. */
  reaper?: boolean;
  /** Where the servers run: local processes (default) or Docker containers (src/real/docker/). */
  cluster?: Cluster;
  /** Images and Compose file for `cluster: "docker"`. */
  docker?: DockerRunOptions;
  /**
   * Lock servers the user runs (library adapters only): lockcheck starts none, the clients
   * connect straight to these, and faults on servers or their links reach nothing.
   */
  externalServers?: readonly { host: string; port: number }[];
  /** Run on these servers (started once, reset after the run) instead of starting a world. */
  shared?: SharedServers;
  /**
   * Asked 4 times a second with the history so far: true ends the run there (clients
   * killed, open calls `info`), e.g. once fuzz sees a violation it was looking for.
   */
  stopWhen?: (ops: Op[]) => boolean;
}

export interface RealProgress {
  elapsedMs: number;
  /** Client events recorded so far (invokes and completions). */
  events: number;
  activeFaults: string[];
  /** Faults begun so far (nemesis.ts `begun`), and how many the schedule has. */
  faultsBegun: number;
  faults: number;
}

export interface RealRun {
  ops: Op[];
  /** Path of the merged history.jsonl. */
  historyFile: string;
  stats: {
    /** Time to start servers, resource, proxies and client processes. */
    setupMs: number;
    /** Of which: servers, resource and proxies. */
    worldMs: number;
    /** Time from releasing the clients to the last one finishing. */
    runMs: number;
    teardownMs: number;
    /** Whether the run hit 2 × horizon and its clients were killed. */
    timedOut: number;
  };
  /** Things that went wrong in lockcheck's own machinery (fault not applied, client crashed by a bug). */
  warnings: string[];
  /**
   * Clients that stopped because lockcheck could not drive them (an adapter outside its
   * contract, a bug): their workload did not happen, so a "valid" verdict means nothing.
   */
  brokenClients: string[];
  /**
   * Clients whose process your library ended by throwing outside a call (from one of its own
   * timers): as it would end your service. What they would have done after it did not happen.
   */
  crashedByLibrary: LibraryCrash[];
}

const RUN_ID_PREFIX = "lcrun";
/** How often `stopWhen` is asked. */
const STOP_CHECK_MS = 250;

/** A fresh run id; it appears in the argv of every process and temp dir of the run. */
export function newRunId(): string {
  return `${RUN_ID_PREFIX}${randomBytes(5).toString("hex")}`;
}

function needsClockShim(schedule: Schedule, servers: ServerKind): boolean {
  return servers === "redis" && schedule.faults.some(changesServerClock);
}

export async function runReal(
  schedule: Schedule,
  target: RealTargetSpec,
  opts: RealRunOptions,
  runId: string = newRunId(),
): Promise<Result<RealRun, string>> {
  const onDocker = opts.cluster === "docker";
  if (onDocker) {
    // Containers share the host's clock: refuse server clock faults before starting anything.
    const { checkScheduleForDocker } = await import("./docker/validate.js");
    const fits = checkScheduleForDocker(schedule);
    if (!fits.ok) return err(fits.error.map(formatInputError).join("\n"));
  }
  const redisServer = onDocker ? ok("") : findBinary("redis-server", opts.redisServer);
  const needsRedis =
    (target.servers === "redis" && opts.externalServers === undefined) || schedule.resource !== "fenced-txn";
  if (needsRedis && !redisServer.ok) return err(redisServer.error);
  const external = opts.externalServers;
  let etcdBinary: string | null = null;
  if (target.servers === "etcd" && !onDocker && external === undefined) {
    const e = findBinary("etcd", opts.etcd);
    if (!e.ok) return err(e.error);
    etcdBinary = e.value;
  }
  if (schedule.resource === "fenced-txn" && target.servers !== "etcd") {
    return err(`resource fenced-txn needs an etcd target, not ${schedule.target}`);
  }
  let clockShim: string | null = null;
  if (!onDocker && opts.shared === undefined && needsClockShim(schedule, target.servers)) {
    const shim = ensureClockShim(opts.cc);
    if (!shim.ok) return err(shim.error);
    clockShim = shim.value;
  }

  const eventsDir = join(opts.outDir, "events");
  // Children append to their events files: start from empty ones (the folder may be reused).
  rmSync(eventsDir, { recursive: true, force: true });
  // An earlier run's history, verdict and report must not sit next to this run's schedule
  // when this one is interrupted or fails before writing its own.
  for (const stale of ["history.jsonl", "verdict.json", "report.html"])
    rmSync(join(opts.outDir, stale), { force: true });
  mkdirSync(eventsDir, { recursive: true });
  writeFileSync(
    join(opts.outDir, "schedule.json"),
    `${JSON.stringify(withModuleRelativeTo(schedule, opts.outDir), null, 2)}\n`,
  );
  // Who ran this folder: the run id is in the argv of every process and temp dir of the run.
  writeFileSync(join(opts.outDir, "run.json"), `${JSON.stringify({ runId, pid: process.pid }, null, 2)}\n`);
  const historyFile = join(opts.outDir, "history.jsonl");
  const clientIds = schedule.clients.map((c) => c.id);
  const setupStart = Date.now();

  const reaper: Reaper | null = opts.reaper === false ? null : await startReaper(runId);
  // Registered first so it runs last: by then everything it guards has been cleaned up.
  const dismissReaper = registerUndo("reaper", () => reaper?.dismiss());
  let t0: bigint | null = null;
  let fleet: ClientFleet | null = null;
  let nemesis: Nemesis | null = null;
  const worldSpec: WorldSpec = {
    runId,
    // With the user's own servers, lockcheck starts only the resource.
    servers:
      external === undefined
        ? { kind: target.servers, count: schedule.options.servers }
        : { kind: "redis", count: 0 },
    resource: schedule.resource,
    clientIds,
    redisServerBinary: redisServer.ok ? redisServer.value : "",
    etcdBinary,
    clockShim,
    reaper,
  };
  // A docker world also reports container operations that failed (as warnings).
  const world: Result<RealWorld & { warnings?: () => string[] }, string> =
    opts.shared !== undefined
      ? await opts.shared.world(clientIds)
      : onDocker
        ? await (await import("./docker/world.js")).startDockerWorld(worldSpec, opts.docker ?? {})
        : await startWorld(worldSpec);
  const worldMs = Date.now() - setupStart;
  if (!world.ok) {
    dismissReaper.run();
    return err(world.error);
  }

  const merge = (): Op[] => {
    const endTime = t0 === null ? 0 : Number(process.hrtime.bigint() - t0);
    return mergeHistory({ eventsDir, clientIds, crashed: fleet?.crashed() ?? new Set(), endTime });
  };
  // On SIGINT/SIGTERM: stop the clients (the newest undo entries) and then write what we have.
  const writePartialHistory = registerUndo("partial history", () => {
    nemesis?.stop();
    writeHistoryAtomically(historyFile, merge());
  });

  let historyWritten = false;
  try {
    const startedClients = await startClients({
      runId,
      schedule,
      algorithm: target.algorithm.name,
      world: world.value,
      eventsDir,
      reaper,
      onPauseRequest: (req) => nemesis?.onPauseRequest(req),
      onLinksRequest: (id, point) => nemesis?.onLinksRequest(id, point),
      ...(external === undefined ? {} : { externalEndpoints: external }),
    }).then(
      (f) => ok(f),
      (e: unknown) => err(`starting clients: ${e instanceof Error ? e.message : String(e)}`),
    );
    if (!startedClients.ok) return startedClients;
    const clients = startedClients.value;
    fleet = clients;
    const setupMs = Date.now() - setupStart;

    // Children wait for "start" before recording anything, so no pause request can come
    // before the nemesis exists.
    t0 = process.hrtime.bigint();
    const faults = createNemesis({
      schedule,
      world: world.value,
      eventsDir,
      t0,
      partitionMode: schedule.partitionMode ?? "cut",
    });
    nemesis = faults;
    await faults.start(clients);
    clients.start(t0);

    const runStart = Date.now();
    // Every second: a fresh snapshot of the history on disk (so even a SIGKILL of this process
    // leaves a readable history.jsonl, at most a second old, beside the complete events/
    // files), and a progress report.
    let stopEarly: (() => void) | undefined;
    const ticker = setInterval(() => {
      const sofar = merge();
      writeHistoryAtomically(historyFile, sofar);
      opts.onProgress?.({
        elapsedMs: Date.now() - runStart,
        events: clients.eventCount(),
        activeFaults: faults.active(),
        faultsBegun: faults.begun(),
        faults: schedule.faults.length,
      });
    }, 1000);
    // Asked 4 times a second: a fuzz run that already failed should not go on for most of a second.
    const stopWhen = opts.stopWhen;
    const stopCheck =
      stopWhen === undefined
        ? undefined
        : setInterval(() => {
            if (stopWhen(merge())) stopEarly?.();
          }, STOP_CHECK_MS);
    let limitTimer: NodeJS.Timeout | undefined;
    const timedOut = await Promise.race([
      clients.allExited.then(() => false),
      new Promise<boolean>((resolve) => {
        stopEarly = () => resolve(false);
      }),
      new Promise<boolean>((resolve) => {
        limitTimer = setTimeout(() => resolve(true), 2 * schedule.options.horizonMs);
      }),
    ]);
    clearTimeout(limitTimer);
    clearInterval(ticker);
    clearInterval(stopCheck);
    const runMs = Date.now() - runStart;

    const teardownStart = Date.now();
    faults.stop();
    await clients.killAll();
    const ops = merge();
    const late = await markLateWrites(world.value, schedule, ops);
    writeHistoryAtomically(historyFile, ops);
    historyWritten = true;
    await world.value.stop();
    const teardownMs = Date.now() - teardownStart;
    return ok({
      ops,
      historyFile,
      stats: { setupMs, worldMs, runMs, teardownMs, timedOut: timedOut ? 1 : 0 },
      warnings: [
        ...clients.failures(),
        ...faults.errors(),
        ...(world.value.warnings?.() ?? []),
        ...(late.ok ? [] : [late.error]),
      ],
      brokenClients: clients.brokenClients(),
      crashedByLibrary: clients.crashedByLibrary(),
    });
  } finally {
    nemesis?.stop();
    await fleet?.killAll();
    // On an error path, still leave the partial history on disk.
    if (historyWritten) writePartialHistory.cancel();
    else writePartialHistory.run();
    await world.value.stop();
    dismissReaper.run();
  }
}
