/**
 * The docker twin of ../shared-world.ts (`fuzz --cluster docker`): the containers and
 * networks of a docker world are started once for a session and reused by every run. Each
 * run gets a view with its own fresh per-link proxies (so no client-side cut or delay
 * outlives its run); before each run the containers are put back as new: queued container
 * operations finished, isolated members back on the peer network, paused containers
 * unpaused, crashed ones started again, and every key flushed. Containers share the host's
 * clock, so there are no clock offsets to reset (server clock faults are refused on docker).
 *
 * The containers and networks carry the session's id as their run label: the guard of the
 * docker cluster (guard.ts) removes them on exit, error, SIGINT and SIGTERM, and its watcher
 * after a SIGKILL; `close` removes them at the end of the session.
 */
import { err, ok, type Result } from "../../result.js";
import { openClientLinks, sharedRunView } from "../client-links.js";
import { waitUntil } from "../cluster/net.js";
import { flushKeys } from "../flush-keys.js";
import { registerUndo } from "../hygiene/undo.js";
import { newRunId } from "../run.js";
import type { SharedServers, SharedServersSpec } from "../shared-world.js";
import type { RealWorld } from "../world.js";
import { answers } from "./probes.js";
import { type DockerRunOptions, type DockerWorld, startDockerWorld } from "./world.js";

/** How long the containers may take to answer again after a run's faults are undone. */
const READY_MS = 30_000;

export async function startSharedDockerServers(
  spec: Pick<SharedServersSpec, "servers" | "resource">,
  opts: DockerRunOptions,
): Promise<Result<SharedServers, string>> {
  const id = newRunId();
  const started = await startDockerWorld(
    {
      runId: id,
      servers: spec.servers,
      resource: spec.resource,
      clientIds: [],
      redisServerBinary: "",
      etcdBinary: null,
      clockShim: null,
      reaper: null,
    },
    opts,
  );
  if (!started.ok) return err(started.error);
  const w: DockerWorld = started.value;
  const nodes = [...w.redis, ...(w.resource === null ? [] : [w.resource])];
  const processes = () => [
    ...nodes.map((n) => n.current()),
    ...(w.etcd?.members.map((m) => m.current()) ?? []),
  ];
  const targets = [...w.cluster.servers, ...(w.resource === null ? [] : [w.cluster.resource])];

  const reset = async (): Promise<Result<void, string>> => {
    const undone = await w.resetFaults();
    if (!undone.ok) return undone;
    // A member back on the peer network or started again may still be catching up, and the
    // cluster re-electing: every container must answer (an etcd member: healthy) first.
    const problems = await Promise.all(
      targets.map((t) =>
        waitUntil(() => answers(t.spec.probe, t.port), { timeoutMs: READY_MS, intervalMs: 50 }),
      ),
    );
    const stuck = problems.findIndex((p) => p !== null);
    if (stuck >= 0) return err(`${targets[stuck]!.name} between runs: ${problems[stuck]}`);
    return flushKeys({
      redisPorts: nodes.map((n) => n.port),
      etcd:
        w.etcd === null
          ? null
          : {
              ports: w.etcd.members.map((m) => m.clientPort),
              leader: (ms) =>
                waitUntil(async () => (await w.cluster.leader(500)) !== null, {
                  timeoutMs: ms,
                  intervalMs: 50,
                }),
            },
    });
  };

  let closed = false;
  const close = async (): Promise<void> => {
    if (closed) return;
    closed = true;
    await w.stop();
  };
  // The cluster's guard removes the containers on signals; this also removes the temp dir.
  const undoClose = registerUndo("shared docker servers", () => void close());

  return ok({
    id,
    spec: { ...spec, redisServerBinary: "", etcdBinary: null, clockShim: null },
    serverPids: () => processes().flatMap((p) => (p === null || p.hasExited() ? [] : [p.pid])),
    async world(clientIds) {
      const cleaned = await reset();
      if (!cleaned.ok) return cleaned;
      const links = await openClientLinks(
        clientIds,
        targets.map((t) => ({ node: t.name, port: t.port })),
        w,
      );
      // Only the container operations that failed during this run are its warnings.
      const warningsBefore = w.warnings().length;
      let stopped = false;
      const view: RealWorld & { warnings(): string[] } = {
        ...sharedRunView(w, clientIds, links),
        cutServerLinks: (a, b, how) => w.cutServerLinks!(a, b, how),
        warnings: () => w.warnings().slice(warningsBefore),
        async stop() {
          if (stopped) return;
          stopped = true;
          await links.close();
          // Containers paused by the run must not stay frozen until the next one starts; a
          // failure here is tried again, and reported, by the next run's reset.
          await w.resetFaults();
        },
      };
      return ok(view);
    },
    async close() {
      undoClose.cancel();
      await close();
    },
  });
}
