/**
 * Servers started once and reused by many runs (`fuzz` on a real target): the lock servers
 * and the resource of a real world, without client links. Each run gets a view of them as a
 * RealWorld with its own fresh per-link proxies (so no cut or delay outlives its run); when
 * the run stops that view, its proxies close and the servers are put back as new: resumed if
 * a pause was cut short, restarted if a crash left them down, clock offsets reset, and every
 * key flushed (Redis FLUSHALL; etcd: all keys deleted), so no run sees another's locks.
 *
 * Docker worlds are shared the same way by docker/shared-world.ts.
 */

import { err, ok, type Result } from "../result.js";
import { openClientLinks, sharedRunView } from "./client-links.js";
import type { RedisNode } from "./cluster/redis.js";
import { flushKeys } from "./flush-keys.js";
import type { ServerProcess } from "./hygiene/managed.js";
import { processState } from "./hygiene/processes.js";
import { type Reaper, startReaper } from "./hygiene/reaper.js";
import { registerUndo } from "./hygiene/undo.js";
import { newRunId } from "./run.js";
import { peerCutOf, type RealWorld, startWorld, type WorldSpec } from "./world.js";

export interface SharedServersSpec {
  servers: WorldSpec["servers"];
  resource: WorldSpec["resource"];
  redisServerBinary: string;
  etcdBinary: string | null;
  clockShim: string | null;
}

export interface SharedServers {
  /** The id in the argv and temp dir of every server of this set. */
  readonly id: string;
  readonly spec: SharedServersSpec;
  /** A run's view of the servers, with proxies for `clientIds`; its stop() resets the servers. */
  world(clientIds: readonly number[]): Promise<Result<RealWorld, string>>;
  /** Pids of the server processes running now (for checks that servers are reused). */
  serverPids(): number[];
  close(): Promise<void>;
}

export async function startSharedServers(spec: SharedServersSpec): Promise<Result<SharedServers, string>> {
  const id = newRunId();
  const reaper: Reaper = await startReaper(id);
  const dismissReaper = registerUndo("shared servers reaper", () => reaper.dismiss());
  const base = await startWorld({ ...spec, runId: id, clientIds: [], reaper });
  if (!base.ok) {
    dismissReaper.run();
    return err(base.error);
  }
  const w = base.value;
  const redisNodes: RedisNode[] = [...w.redis, ...(w.resource === null ? [] : [w.resource])];
  const processes = (): (ServerProcess | null)[] => [
    ...redisNodes.map((n) => n.current()),
    ...(w.etcd?.members.map((m) => m.current()) ?? []),
  ];

  const reset = async (): Promise<Result<void, string>> => {
    w.etcd?.resetPeers?.();
    for (const p of processes()) {
      // Pauses nest: resume until the process runs (a pause whose end was cancelled).
      for (let i = 0; i < 16 && p !== null && !p.hasExited() && (p.isPaused() || isStopped(p.pid)); i++)
        p.resume();
    }
    for (const n of redisNodes) {
      n.clock?.jump(-n.clock.offsetMs());
      n.clock?.drift(0);
      if (n.current() === null) {
        const r = await n.restart();
        if (!r.ok) return err(`restarting ${n.name} between runs: ${r.error}`);
      }
    }
    for (const m of w.etcd?.members ?? []) {
      if (m.current() === null) {
        const r = await m.restart();
        if (!r.ok) return err(`restarting etcd ${m.name} between runs: ${r.error}`);
      }
    }
    return flush();
  };

  const flush = (): Promise<Result<void, string>> =>
    flushKeys({
      redisPorts: redisNodes.map((n) => n.port),
      etcd:
        w.etcd === null
          ? null
          : { ports: w.etcd.members.map((m) => m.clientPort), leader: (ms) => w.etcd!.leader(ms) },
    });

  const targets = (): { node: string; port: number }[] => [
    ...w.redis.map((n) => ({ node: n.name, port: n.port })),
    ...(w.etcd?.members.map((m) => ({ node: m.name, port: m.clientPort })) ?? []),
    ...(w.resource === null ? [] : [{ node: "resource", port: w.resource.port }]),
  ];

  let closed = false;
  const close = async (): Promise<void> => {
    if (closed) return;
    closed = true;
    await w.stop();
    dismissReaper.run();
  };
  const undoClose = registerUndo("shared servers", () => void close());

  return ok({
    id,
    spec,
    serverPids: () => processes().flatMap((p) => (p === null || p.hasExited() ? [] : [p.pid])),
    async world(clientIds) {
      const cleaned = await reset();
      if (!cleaned.ok) return cleaned;
      const links = await openClientLinks(clientIds, targets(), w);
      let stopped = false;
      const cutServerLinks = peerCutOf(w.etcd);
      return ok({
        ...sharedRunView(w, clientIds, links),
        ...(cutServerLinks === undefined ? {} : { cutServerLinks }),
        async stop() {
          if (stopped) return;
          stopped = true;
          await links.close();
          w.etcd?.resetPeers?.();
          // Servers paused by the run must not stay frozen until the next one starts.
          for (const p of processes()) for (let i = 0; i < 16 && p !== null && p.isPaused(); i++) p.resume();
        },
      });
    },
    async close() {
      undoClose.cancel();
      await close();
    },
  });
}

function isStopped(pid: number): boolean {
  return processState(pid) === "T";
}
