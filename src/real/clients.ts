/**
 * The client processes of a real run: one child process per schedule client, started with
 * an IPC channel (they exit by themselves when it closes), configured, then released all at
 * once by a "start" message.
 */
import { algorithmModuleUrl } from "../locks/algorithm-modules.js";
import { libraryModuleUrl } from "../locks/library-modules.js";
import { afterMsLabel, checkpointFaultPoint } from "../schedule/faults/after-checkpoint.js";
import { pauseAtMark } from "../schedule/faults/pause-at.js";
import { clocksField, clocksLabel } from "../schedule/faults/pause-clocks.js";
import type { Schedule } from "../schedule/schedule.js";
import {
  type CheckpointFaultPoint,
  type ChildConfig,
  type ChildMessage,
  type LibraryChildConfig,
  type ParentMessage,
  pointKey,
} from "./client/protocol.js";
import { LOOPBACK } from "./cluster/net.js";
import { pauseInCallRequest, pauseInCallSpecs } from "./faults/pause-in-call.js";
import { clientEventsFile } from "./history.js";
import { type ManagedProcess, spawnManaged } from "./hygiene/managed.js";
import { nodeCommand, siblingEntry } from "./hygiene/processes.js";
import type { Reaper } from "./hygiene/reaper.js";
import type { RealWorld } from "./world.js";

export interface PauseRequest {
  clientId: number;
  durationMs: number;
  /** ns since t0, stamped by the child just before it stopped itself. */
  time: number;
  /** What the nemesis records as the pause's value. */
  value: Record<string, unknown>;
  /** For the progress line, e.g. "pause-at client:0@acquired". */
  label: string;
}

/** A client process your library ended by throwing outside a call, and the warning that says so. */
export interface LibraryCrash {
  client: string;
  /** "client:N: the library threw outside a call; the client process exits: …" */
  warning: string;
}

export interface ClientFleet {
  readonly ids: readonly number[];
  process(id: number): ManagedProcess | undefined;
  /** Releases every client at once; `t0` is the run's start on the monotonic clock. */
  start(t0: bigint): void;
  /** Resolves when every client process has exited (done, crashed or killed). */
  readonly allExited: Promise<void>;
  /** Client events recorded so far (from the children's reports; for progress only). */
  eventCount(): number;
  /** Clients that stopped on an error, with the message (the library's own, or lockcheck's). */
  failures(): string[];
  /** Of those, the clients lockcheck could not drive (not the library's own stray errors). */
  brokenClients(): string[];
  /** Clients whose process your library ended by throwing outside a call (see library-client.ts). */
  crashedByLibrary(): LibraryCrash[];
  crash(id: number): Promise<void>;
  crashed(): ReadonlySet<number>;
  send(id: number, msg: ParentMessage): void;
  killAll(): Promise<void>;
}

export interface FleetOptions {
  runId: string;
  schedule: Schedule;
  algorithm: string;
  world: RealWorld;
  eventsDir: string;
  reaper: Reaper | null;
  onPauseRequest(req: PauseRequest): void;
  /** A client reached a point where faults change its links, and waits for `links-changed`. */
  onLinksRequest(clientId: number, point: CheckpointFaultPoint): void;
  /** How long children may take to start and connect. */
  startTimeoutMs?: number;
  /** Lock servers the user runs (`--redis-endpoints`): a library adapter connects there, not to proxies. */
  externalEndpoints?: readonly { host: string; port: number }[];
}

export async function startClients(opts: FleetOptions): Promise<ClientFleet> {
  const { schedule } = opts;
  const { command, args } = nodeCommand(siblingEntry(import.meta.url, "./client/child-main"));
  const procs = new Map<number, ManagedProcess>();
  const crashed = new Set<number>();
  const failures: string[] = [];
  const broken: string[] = [];
  const crashedByLibrary: LibraryCrash[] = [];
  let events = 0;

  const readyAll = schedule.clients.map((plan) => {
    const proc = spawnManaged(
      {
        label: `client:${plan.id}`,
        command,
        args: [...args, "--lockcheck-run", opts.runId, "--client", String(plan.id)],
        // stdout stays clean for `--json`; a child reports trouble over IPC or on stderr.
        stdio: ["ignore", "ignore", "inherit", "ipc"],
      },
      opts.reaper,
    );
    procs.set(plan.id, proc);
    const ports = opts.world.portsFor(plan.id);
    const algorithmModule = algorithmModuleUrl(opts.algorithm);
    const libraryModule = libraryModuleUrl(opts.algorithm);
    const config: ChildConfig = {
      runId: opts.runId,
      clientId: plan.id,
      algorithm: opts.algorithm,
      ...(algorithmModule === undefined ? {} : { algorithmModule }),
      ...(libraryModule === undefined
        ? {}
        : { library: libraryChildConfig(libraryModule, schedule, ports, opts.externalEndpoints) }),
      plan,
      workload: {
        lockName: schedule.options.lockName,
        ttlMs: schedule.options.ttlMs,
        horizonMs: schedule.options.horizonMs,
      },
      callTimeoutMs: schedule.options.callTimeoutMs,
      redisPorts: ports.redisPorts,
      etcdPorts: ports.etcdPorts,
      resource: { mode: schedule.resource, port: ports.resourcePort },
      pauseAt: schedule.faults.flatMap((f) =>
        f.kind === "pause-at" && f.client === plan.id
          ? [{ ...pauseAtMark(f), ...clocksField(f.clocks) }]
          : [],
      ),
      linksAt: linkChangePoints(schedule.faults, plan.id),
      pauseInCall: pauseInCallSpecs(schedule.faults, plan.id),
      eventsFile: clientEventsFile(opts.eventsDir, plan.id),
    };
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`client:${plan.id} did not become ready`)),
        opts.startTimeoutMs ?? 60_000,
      );
      proc.child.on("message", (raw: unknown) => {
        const msg = raw as ChildMessage;
        switch (msg.type) {
          case "ready":
            clearTimeout(timer);
            resolve();
            return;
          case "event":
            events++;
            return;
          case "pause-me": {
            proc.notePausedBySelf();
            const { checkpoint, afterMs, durationMs, time, clocks } = msg;
            const value = { ...pauseAtMark(msg), ...clocksField(clocks) };
            const label = `pause-at client:${plan.id}@${checkpoint}${afterMsLabel(afterMs)}${clocksLabel(clocks)}`;
            opts.onPauseRequest({ clientId: plan.id, durationMs, time, value, label });
            return;
          }
          case "change-links":
            opts.onLinksRequest(plan.id, checkpointFaultPoint(msg));
            return;
          case "pause-in-call":
            proc.notePausedBySelf();
            opts.onPauseRequest(pauseInCallRequest(plan.id, msg, msg.time));
            return;
          case "failed":
            failures.push(`client:${plan.id}: ${msg.message}`);
            if (msg.library !== true) broken.push(`client:${plan.id}`);
            else crashedByLibrary.push({ client: `client:${plan.id}`, warning: failures.at(-1)! });
            clearTimeout(timer);
            reject(new Error(`client:${plan.id} failed: ${msg.message}`));
            return;
          case "done":
            return;
        }
      });
      void proc.exited.then((info) => {
        clearTimeout(timer);
        reject(
          new Error(
            `client:${plan.id} exited before it was ready (code ${info.code}, signal ${info.signal})`,
          ),
        );
      });
      proc.child.send({ type: "init", config } satisfies ParentMessage);
    });
  });

  const fleet: ClientFleet = {
    ids: schedule.clients.map((c) => c.id),
    process: (id) => procs.get(id),
    start(t0) {
      for (const id of procs.keys()) fleet.send(id, { type: "start", t0: t0.toString() });
    },
    allExited: Promise.all([...procs.values()].map((p) => p.exited)).then(() => undefined),
    eventCount: () => events,
    failures: () => [...failures],
    brokenClients: () => [...broken],
    crashedByLibrary: () => [...crashedByLibrary],
    async crash(id) {
      const p = procs.get(id);
      if (p === undefined || p.hasExited()) return;
      crashed.add(id);
      await p.kill();
    },
    crashed: () => crashed,
    send(id, msg) {
      const p = procs.get(id);
      if (p !== undefined && !p.hasExited() && p.child.connected) p.child.send(msg, () => {});
    },
    async killAll() {
      await Promise.all([...procs.values()].map((p) => p.kill()));
    },
  };

  try {
    await Promise.all(readyAll);
  } catch (e) {
    await fleet.killAll();
    throw e;
  }
  return fleet;
}

/** A library client's module, options and endpoints: its link proxies, or the user's own servers. */
function libraryChildConfig(
  module: string,
  schedule: Schedule,
  ports: { redisPorts: number[]; etcdPorts: number[] },
  external: FleetOptions["externalEndpoints"],
): LibraryChildConfig {
  const proxied = [...ports.redisPorts, ...ports.etcdPorts].map((port) => ({ host: LOOPBACK, port }));
  return {
    module,
    options: schedule.module?.options ?? {},
    endpoints: external === undefined ? proxied : [...external],
  };
}

/**
 * The points where client `id`'s `partition-at` and `delay-at` faults change its links, each
 * once: the parent starts every fault of a point at its one request.
 */
function linkChangePoints(faults: Schedule["faults"], id: number): CheckpointFaultPoint[] {
  const points = new Map<string, CheckpointFaultPoint>();
  for (const f of faults) {
    if ((f.kind !== "partition-at" && f.kind !== "delay-at") || f.client !== id) continue;
    const point = checkpointFaultPoint(f);
    points.set(pointKey(point), point);
  }
  return [...points.values()];
}
