/**
 * A cluster of containers for one run (`--cluster docker`): the servers and the resource of a
 * Compose topology, started on the run's own networks, checked until each answers, faulted
 * (pause, crash and restart, isolation from the other servers) and removed at the end. The
 * process backend's TCP proxies sit in front of the published ports for client-side
 * partitions and delays, exactly as in front of local processes.
 *
 * Every container and network carries the run's labels, and a guard (guard.ts) removes them
 * on every exit path. Containers share the host's clock: clock faults cannot be applied
 * (validate.ts rejects them before anything starts).
 */
import type Docker from "dockerode";
import { err, ok, type Result } from "../../result.js";
import { LOOPBACK, postJson, waitUntil } from "../cluster/net.js";
import { removeObjects } from "./cleanup.js";
import type { ServiceSpec, Topology } from "./compose.js";
import { startServiceContainer } from "./container.js";
import { guardRun } from "./guard.js";
import { ensureImages } from "./images.js";
import { createRunNetworks, type RunNetworks } from "./network.js";
import { answers } from "./probes.js";

/** One server (or the resource) running in a container. */
export interface DockerNode {
  /** Schedule node: "server:N" or "resource". */
  readonly name: string;
  readonly spec: ServiceSpec;
  readonly containerName: string;
  /** Clients reach it at 127.0.0.1:port (through proxies, in a run). */
  readonly port: number;
  isPaused(): boolean;
  isDown(): boolean;
  isIsolated(): boolean;
  /** Freezes every process in the container (cgroup freezer): a stop-the-world pause. */
  pause(): Promise<void>;
  resume(): Promise<void>;
  /** SIGKILL; the container stays down until `restart`. */
  crash(): Promise<void>;
  /**
   * Starts the killed container again and waits until it answers. Redis comes back empty (no
   * persistence); an etcd member keeps its data in the container and rejoins. An etcd member
   * alone cannot report healthy while the others are down or isolated: `waitMs` bounds it.
   */
  restart(waitMs?: number): Promise<Result<void, string>>;
  /** Cuts it off from the other servers (not from clients): off the peer network. */
  isolate(): Promise<void>;
  /** Back on the peer network under its service name. */
  rejoin(): Promise<void>;
  /** Host pid of the container's main process (the server), or null while it is down. */
  mainPid(): Promise<number | null>;
}

export interface DockerCluster {
  readonly runId: string;
  readonly topology: Topology;
  readonly networks: RunNetworks;
  /** server:0 … server:N-1. */
  readonly servers: readonly DockerNode[];
  readonly resource: DockerNode;
  /** For etcd: the index of the server that leads now (majority of live answers), else null. */
  leader(timeoutMs?: number): Promise<number | null>;
  /** Removes every container and network of the run; an error lists what could not be removed. */
  stop(): Promise<Result<void, string>>;
}

export interface DockerClusterOptions {
  docker: Docker;
  runId: string;
  topology: Topology;
  /** How long every server may take to answer after start (default 60 s). */
  startTimeoutMs?: number;
  /** Progress lines (image pulls). */
  log?: (line: string) => void;
}

function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

function makeNode(
  docker: Docker,
  spec: ServiceSpec,
  created: { container: Docker.Container; name: string; port: number },
  networks: RunNetworks,
): DockerNode {
  let paused = false;
  let down = false;
  let isolated = false;
  const { container } = created;
  const node: DockerNode = {
    name: spec.node,
    spec,
    containerName: created.name,
    port: created.port,
    isPaused: () => paused,
    isDown: () => down,
    isIsolated: () => isolated,
    async pause() {
      if (paused || down) return;
      await container.pause();
      paused = true;
    },
    async resume() {
      if (!paused) return;
      await container.unpause();
      paused = false;
    },
    async crash() {
      if (down) return;
      await container.kill({ signal: "SIGKILL" });
      await container.wait({ condition: "not-running" });
      paused = false;
      down = true;
    },
    async restart(waitMs = 30_000) {
      if (!down) return ok(undefined);
      try {
        await container.start();
      } catch (e) {
        return err(`${spec.node} (${created.name}): restart failed: ${message(e)}`);
      }
      down = false;
      const problem = await waitUntil(() => answers(spec.probe, created.port), {
        timeoutMs: waitMs,
        intervalMs: 50,
      });
      return problem === null
        ? ok(undefined)
        : err(`${spec.node} (${created.name}) after restart: ${problem}`);
    },
    async isolate() {
      if (isolated) return;
      await docker.getNetwork(networks.peers).disconnect({ Container: container.id, Force: true });
      isolated = true;
    },
    async rejoin() {
      if (!isolated) return;
      await docker
        .getNetwork(networks.peers)
        .connect({ Container: container.id, EndpointConfig: { Aliases: [spec.service] } });
      isolated = false;
    },
    async mainPid() {
      const info = await container.inspect();
      return info.State.Running && info.State.Pid > 0 ? info.State.Pid : null;
    },
  };
  return node;
}

/** etcd's own view, from one member's status endpoint. */
async function etcdStatus(
  port: number,
  timeoutMs: number,
): Promise<{ self?: string; leader?: string } | null> {
  const s = (await postJson(`http://${LOOPBACK}:${port}/v3/maintenance/status`, {}, timeoutMs)) as {
    leader?: string;
    header?: { member_id?: string };
  } | null;
  return s === null ? null : { self: s.header?.member_id, leader: s.leader };
}

/**
 * Starts the topology's containers for run `runId` and waits until all answer. On failure
 * everything created so far is removed before the error returns.
 */
export async function startDockerCluster(opts: DockerClusterOptions): Promise<Result<DockerCluster, string>> {
  const { docker, runId, topology } = opts;
  // The guard must watch before anything labelled with the run exists; images carry no label.
  const [images, guard] = await Promise.all([ensureImages(docker, topology, opts.log), guardRun(runId)]);
  if (!images.ok) {
    guard.settle();
    return images;
  }
  const removeAll = async (): Promise<Result<void, string>> => {
    const report = await removeObjects(docker, { runId, includeLive: true });
    if (report.failures.length > 0) {
      return err(report.failures.map((f) => `${f.object.kind} ${f.object.name}: ${f.error}`).join("; "));
    }
    guard.settle();
    return ok(undefined);
  };
  const fail = async (why: string): Promise<Result<DockerCluster, string>> => {
    const removed = await removeAll();
    return err(removed.ok ? why : `${why} (and cleanup failed: ${removed.error})`);
  };

  let networks: RunNetworks;
  let nodes: DockerNode[];
  try {
    const nets = await createRunNetworks(docker, runId);
    networks = nets;
    // All at once: etcd members only become healthy together, and it is much faster.
    const settled = await Promise.allSettled(
      topology.services.map(async (spec) =>
        makeNode(docker, spec, await startServiceContainer(docker, runId, spec, nets), nets),
      ),
    );
    const failed = settled.find((r) => r.status === "rejected");
    if (failed !== undefined) throw failed.reason;
    nodes = settled.map((r) => (r as PromiseFulfilledResult<DockerNode>).value);
  } catch (e) {
    return fail(`docker cluster of run ${runId} (${topology.file}): ${message(e)}`);
  }

  const timeoutMs = opts.startTimeoutMs ?? 60_000;
  const problems = await Promise.all(
    nodes.map((n) => waitUntil(() => answers(n.spec.probe, n.port), { timeoutMs, intervalMs: 50 })),
  );
  const stuck = problems.findIndex((p) => p !== null);
  if (stuck >= 0) {
    const n = nodes[stuck]!;
    const logs = await containerLogTail(docker, n.containerName);
    return fail(`${n.name} (${n.containerName}, image ${n.spec.image}): ${problems[stuck]}${logs}`);
  }

  const servers = nodes.filter((n) => n.name !== "resource");
  const resource = nodes.find((n) => n.name === "resource")!;
  const memberIds =
    servers[0]?.spec.probe === "etcd"
      ? (await Promise.all(servers.map((s) => etcdStatus(s.port, 2000)))).map((s) => s?.self)
      : [];

  return ok({
    runId,
    topology,
    networks,
    servers,
    resource,
    async leader(timeoutMs = 500) {
      if (memberIds.length === 0) return null;
      const answersNow = await Promise.all(
        servers.map((s) => (s.isDown() || s.isPaused() ? null : etcdStatus(s.port, timeoutMs))),
      );
      const votes = new Map<string, number>();
      for (const a of answersNow)
        if (a?.leader !== undefined) votes.set(a.leader, (votes.get(a.leader) ?? 0) + 1);
      let best: string | undefined;
      for (const [id, n] of votes) if (best === undefined || n > votes.get(best)!) best = id;
      const index = best === undefined ? -1 : memberIds.indexOf(best);
      return index >= 0 ? index : null;
    },
    stop: removeAll,
  });
}

/** The last lines a container printed, for an error message ("" if none can be read). */
async function containerLogTail(docker: Docker, name: string): Promise<string> {
  try {
    const buf = (await docker
      .getContainer(name)
      .logs({ stdout: true, stderr: true, tail: 8 })) as unknown as Buffer;
    // Multiplexed frames: strip each 8-byte header to keep the text readable.
    const text = demultiplex(buf).trim();
    return text === "" ? "" : `; its last output:\n${text}`;
  } catch {
    return "";
  }
}

function demultiplex(buf: Buffer): string {
  const parts: string[] = [];
  let i = 0;
  while (i + 8 <= buf.length && (buf[i] === 1 || buf[i] === 2) && buf[i + 1] === 0) {
    const size = buf.readUInt32BE(i + 4);
    parts.push(buf.subarray(i + 8, i + 8 + size).toString("utf8"));
    i += 8 + size;
  }
  return i === 0 ? buf.toString("utf8") : parts.join("");
}
