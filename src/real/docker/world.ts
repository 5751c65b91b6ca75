/**
 * The real world of a run on Docker (`--cluster docker`): the same `RealWorld` the process
 * backend builds (src/real/world.ts), so the clients, the nemesis, the faults and the history
 * are exactly those of the process backend. Only what sits behind the proxies differs: each
 * server and the resource is a container (cluster.ts) reached on its published 127.0.0.1
 * port, and its "process" for the faults is the container:
 *
 * - pause/resume: `docker pause`/`unpause` (cgroup freezer: every process in it stops);
 * - crash/restart: SIGKILL of the container, then `docker start` (Redis comes back empty;
 *   an etcd member keeps its data in the container and rejoins; the resource is durable);
 * - client-side partitions and delays: the same per-link TCP proxies as for processes;
 * - partitions between servers: isolate a member from its peers (see `partitionServers`).
 *
 * Docker calls are asynchronous while the fault interface's pause/resume are not, so each
 * node runs its container operations strictly in order on its own queue (node-adapter.ts); a
 * failure is kept for the run's warnings.
 */
import type Docker from "dockerode";
import { err, ok, type Result } from "../../result.js";
import type { EtcdCluster, EtcdMember } from "../cluster/etcd.js";
import type { RedisNode } from "../cluster/redis.js";
import { makeTempDir } from "../hygiene/temp-dir.js";
import { type LinkProxy, startLinkProxy } from "../proxy/link-proxy.js";
import type { RealWorld, ServerCut, WorldSpec } from "../world.js";
import { type DockerCluster, type DockerNode, startDockerCluster } from "./cluster.js";
import type { Topology } from "./compose.js";
import { connectEngine } from "./engine.js";
import { adaptNode, type NodeAdapter } from "./node-adapter.js";
import { type DockerImages, topologyFor } from "./topology.js";

/** What `--cluster docker` adds to a real run's options. */
export interface DockerRunOptions {
  images?: DockerImages;
  /** A Compose file of one's own instead of the shipped one for the target. */
  composeFile?: string;
  /** Progress lines (image pulls). */
  log?: (line: string) => void;
}

export interface DockerWorld extends RealWorld {
  readonly cluster: DockerCluster;
  /** Container operations that failed during the run (lockcheck trouble, not findings). */
  warnings(): string[];
  /**
   * Undoes every server fault left by a run (shared-world.ts reuses the containers): waits for
   * queued container operations, rejoins isolated members, unpauses paused containers and
   * restarts crashed ones. Keys are not touched.
   */
  resetFaults(): Promise<Result<void, string>>;
}

function redisNode(node: DockerNode, a: NodeAdapter): RedisNode {
  return {
    name: node.name,
    port: node.port,
    dir: `${node.containerName}:/data`,
    clock: null,
    current: a.current,
    crash: a.crash,
    restart: a.restart,
    stop: async () => {},
  };
}

function etcdMember(node: DockerNode, a: NodeAdapter): EtcdMember {
  return {
    name: node.name,
    clientPort: node.port,
    peerPort: 2380,
    dataDir: `${node.containerName}:/var/lib/etcd/data`,
    current: a.current,
    crash: a.crash,
    restart: a.restart,
  };
}

/**
 * Which member to isolate so that exactly the links between servers of `a` and servers of `b`
 * are cut: one side must be a single member and the other side all the rest (isolation cuts a
 * member off from every peer). Redis servers never talk to each other: nothing to cut.
 */
export function memberToIsolate(
  kind: WorldSpec["servers"]["kind"],
  all: readonly string[],
  a: readonly string[],
  b: readonly string[],
): { member: string | null } | { unsupported: string } {
  if (kind === "redis") return { member: null };
  const sideA = [...new Set(a)].filter((n) => all.includes(n));
  const sideB = [...new Set(b)].filter((n) => all.includes(n) && !sideA.includes(n));
  const covers = (one: string[], rest: string[]): boolean =>
    one.length === 1 && all.every((n) => n === one[0] || rest.includes(n));
  if (covers(sideA, sideB)) return { member: sideA[0]! };
  if (covers(sideB, sideA)) return { member: sideB[0]! };
  return {
    unsupported:
      `docker cuts server links by isolating one member from all others; ` +
      `${sideA.join(",")} | ${sideB.join(",")} is not such a split`,
  };
}

/** The topology without the resource container when the resource is the etcd cluster itself. */
function withoutResourceIfTxn(topology: Topology, spec: WorldSpec): Topology {
  if (spec.resource !== "fenced-txn") return topology;
  return { ...topology, services: topology.services.filter((s) => s.node !== "resource") };
}

/** Starts the run's containers and the client↔node proxies in front of them. */
export async function startDockerWorld(
  spec: WorldSpec,
  opts: DockerRunOptions,
): Promise<Result<DockerWorld, string>> {
  const topology = topologyFor(spec.servers.kind, spec.servers.count, {
    ...(opts.images === undefined ? {} : { images: opts.images }),
    ...(opts.composeFile === undefined ? {} : { composeFile: opts.composeFile }),
  });
  if (!topology.ok) {
    const e = topology.error;
    return err([e.file, e.field, e.message].filter((x) => x !== undefined).join(": "));
  }
  const docker: Result<Docker, string> = await connectEngine();
  if (!docker.ok) return docker;
  const started = await startDockerCluster({
    docker: docker.value,
    runId: spec.runId,
    topology: withoutResourceIfTxn(topology.value, spec),
    ...(opts.log === undefined ? {} : { log: opts.log }),
  });
  if (!started.ok) return started;
  const cluster = started.value;
  const dir = makeTempDir(spec.runId, spec.reaper);
  const failures: string[] = [];
  const links = new Map<string, LinkProxy>();
  const adapters: NodeAdapter[] = [];
  const adapt = async (n: DockerNode): Promise<NodeAdapter> => {
    const a = await adaptNode(n, failures);
    adapters.push(a);
    return a;
  };
  const stop = async (): Promise<void> => {
    // A resume still queued must reach its container before the container is removed.
    await Promise.all(adapters.map((a) => a.drain()));
    await Promise.all([...links.values()].map((p) => p.close()));
    links.clear();
    const removed = await cluster.stop();
    if (!removed.ok) failures.push(removed.error);
    dir.remove();
  };

  try {
    const servers = await Promise.all(cluster.servers.map(async (n) => ({ n, a: await adapt(n) })));
    const resourceNode = spec.resource === "fenced-txn" ? null : cluster.resource;
    const resource = resourceNode === null ? null : redisNode(resourceNode, await adapt(resourceNode));
    const redis = spec.servers.kind === "redis" ? servers.map(({ n, a }) => redisNode(n, a)) : [];
    const etcd: EtcdCluster | null =
      spec.servers.kind === "etcd"
        ? {
            members: servers.map(({ n, a }) => etcdMember(n, a)),
            leader: (ms) => cluster.leader(ms),
            stop: async () => {},
          }
        : null;

    const key = (clientId: number, node: string): string => `client:${clientId}|${node}`;
    const targets = [...cluster.servers, ...(resourceNode === null ? [] : [resourceNode])];
    for (const id of spec.clientIds) {
      for (const t of targets) links.set(key(id, t.name), await startLinkProxy(t.port));
    }
    const portOf = (id: number, node: string): number => links.get(key(id, node))!.port;
    return ok({
      spec,
      dir,
      redis,
      etcd,
      resource,
      cluster,
      link: (id, node) => links.get(key(id, node)),
      async cutServerLinks(a, b, how): Promise<ServerCut> {
        if (how.oneWay && spec.servers.kind === "etcd")
          return { unsupported: "docker cuts server links by isolating a member, both ways, not one way" };
        const names = servers.map(({ n }) => n.name);
        const choice = memberToIsolate(spec.servers.kind, names, a, b);
        if ("unsupported" in choice) return choice;
        if (choice.member === null) return { heal: () => {}, isolated: [] };
        const adapter = servers.find(({ n }) => n.name === choice.member)!.a;
        await adapter.isolate();
        return { heal: () => adapter.heal(), isolated: [choice.member] };
      },
      portsFor: (id) => ({
        redisPorts: redis.map((n) => portOf(id, n.name)),
        etcdPorts: etcd?.members.map((m) => portOf(id, m.name)) ?? [],
        resourcePort: resource === null ? null : portOf(id, "resource"),
      }),
      warnings: () => [...failures],
      async resetFaults() {
        await Promise.all(adapters.map((a) => a.undoFaults()));
        // Together: an etcd member only reports healthy once a majority runs.
        const restarted = await Promise.all(
          adapters.map((a) =>
            a.current() === null || a.current()!.hasExited() ? a.restart() : ok(undefined),
          ),
        );
        const failed = restarted.filter((r) => !r.ok).map((r) => (r.ok ? "" : r.error));
        return failed.length === 0
          ? ok(undefined)
          : err(`restarting containers between runs: ${failed.join("; ")}`);
      },
      stop,
    });
  } catch (e) {
    await stop();
    return err(`docker world of run ${spec.runId}: ${e instanceof Error ? e.message : String(e)}`);
  }
}
