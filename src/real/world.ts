/**
 * The real world of one run: the lock servers (standalone redis-servers or an etcd cluster),
 * the protected resource (a durable redis-server), and one TCP proxy per client↔node link,
 * so partitions and delays can hit single links. Everything lives on 127.0.0.1, in one
 * temp dir, registered with the undo list and the reaper.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { err, ok, type Result } from "../result.js";
import type { PartitionMode, ResourceMode } from "../schedule/schedule.js";
import { type EtcdCluster, startEtcdCluster } from "./cluster/etcd.js";
import { type RedisNode, startRedisNode } from "./cluster/redis.js";
import type { Reaper } from "./hygiene/reaper.js";
import { makeTempDir, type TempDir } from "./hygiene/temp-dir.js";
import { type LinkProxy, startLinkProxy } from "./proxy/link-proxy.js";

export type ServerKind = "redis" | "etcd";

export interface WorldSpec {
  runId: string;
  servers: { kind: ServerKind; count: number };
  resource: ResourceMode;
  clientIds: readonly number[];
  redisServerBinary: string;
  etcdBinary: string | null;
  /** Built clock shim to preload into redis-servers, or null (no clock faults on them). */
  clockShim: string | null;
  reaper: Reaper | null;
}

export interface RealWorld {
  readonly spec: WorldSpec;
  readonly dir: TempDir;
  /** Lock servers of Redis targets, server:0 … server:N-1 (empty for etcd). */
  readonly redis: readonly RedisNode[];
  readonly etcd: EtcdCluster | null;
  /** The resource redis-server; null when the resource is the etcd cluster (`fenced-txn`). */
  readonly resource: RedisNode | null;
  /** The proxy of a link, e.g. link(0, "server:2"), link(1, "resource"); undefined if no such link. */
  link(clientId: number, node: string): LinkProxy | undefined;
  /** Ports a client connects to, in server order. */
  portsFor(clientId: number): { redisPorts: number[]; etcdPorts: number[]; resourcePort: number | null };
  /**
   * Cuts every link between a server of `a` and a server of `b` ("server:N") until `heal`, where
   * this world can: etcd members on this machine through their peer links (cluster/peer-links.ts,
   * Linux), the docker world by isolating one member from its peers (src/real/docker/). Absent
   * where servers do not talk to each other (Redis) or their links cannot be told apart.
   */
  cutServerLinks?(
    a: readonly string[],
    b: readonly string[],
    how: { mode: PartitionMode; oneWay: boolean },
  ): Promise<ServerCut>;
  stop(): Promise<void>;
}

/** A server↔server cut that was made (and which servers it isolated), or why it could not be. */
export type ServerCut = { heal: () => void; isolated: string[] } | { unsupported: string };

const linkKey = (clientId: number, node: string): string => `client:${clientId}|${node}`;

/**
 * `cutServerLinks` for an etcd cluster of local processes whose peer links are lockcheck's:
 * any split of the members, cut or black-holed as the run's partitions are, or one way. The
 * smaller side of a two-way split (side `a` on a tie) is recorded as isolated.
 */
export function peerCutOf(etcd: EtcdCluster | null): RealWorld["cutServerLinks"] {
  const cutPeers = etcd?.cutPeers;
  if (cutPeers === undefined) return undefined;
  const index = (name: string): number => Number(name.slice("server:".length));
  return async (a, b, how) => {
    const heal = cutPeers(a.map(index), b.map(index), how);
    return { heal, isolated: how.oneWay ? [] : [...(b.length < a.length ? b : a)] };
  };
}

export async function startWorld(spec: WorldSpec): Promise<Result<RealWorld, string>> {
  const dir = makeTempDir(spec.runId, spec.reaper);
  const stops: (() => Promise<void>)[] = [];
  const stopAll = async (): Promise<void> => {
    await Promise.all(stops.splice(0).map((s) => s()));
    dir.remove();
  };
  const built = await buildWorld(spec, dir, stops);
  if (!built.ok) {
    await stopAll();
    return built;
  }
  return ok({ ...built.value, stop: stopAll });
}

async function buildWorld(
  spec: WorldSpec,
  dir: TempDir,
  stops: (() => Promise<void>)[],
): Promise<Result<Omit<RealWorld, "stop">, string>> {
  const redisNode = async (name: string, durable: boolean): Promise<Result<RedisNode, string>> => {
    const nodeDir = join(dir.path, name.replace(":", "-"));
    mkdirSync(nodeDir, { recursive: true });
    const r = await startRedisNode({
      name,
      binary: spec.redisServerBinary,
      dir: nodeDir,
      clockShim: spec.clockShim,
      reaper: spec.reaper,
      durable,
    });
    if (r.ok) stops.push(() => r.value.stop());
    return r;
  };

  const needsResourceServer = spec.resource !== "fenced-txn";
  const [servers, cluster, resource] = await Promise.all([
    spec.servers.kind === "redis"
      ? Promise.all(Array.from({ length: spec.servers.count }, (_, i) => redisNode(`server:${i}`, false)))
      : Promise.resolve([]),
    spec.servers.kind === "etcd" ? startCluster(spec, dir, stops) : Promise.resolve(ok(null)),
    needsResourceServer ? redisNode("resource", true) : Promise.resolve(ok(null)),
  ]);
  const failed = [...servers, cluster, resource].find((r) => !r.ok);
  if (failed !== undefined && !failed.ok) return err(failed.error);
  const redis = servers.map((r) => (r as { ok: true; value: RedisNode }).value);
  const etcd = (cluster as { ok: true; value: EtcdCluster | null }).value;
  const resourceNode = (resource as { ok: true; value: RedisNode | null }).value;

  const targets: { node: string; port: number }[] = [
    ...redis.map((n) => ({ node: n.name, port: n.port })),
    ...(etcd?.members.map((m) => ({ node: m.name, port: m.clientPort })) ?? []),
    ...(resourceNode === null ? [] : [{ node: "resource", port: resourceNode.port }]),
  ];
  const links = new Map<string, LinkProxy>();
  for (const id of spec.clientIds) {
    for (const t of targets) {
      const proxy = await startLinkProxy(t.port);
      links.set(linkKey(id, t.node), proxy);
      stops.push(() => proxy.close());
    }
  }
  const portOf = (id: number, node: string): number => links.get(linkKey(id, node))!.port;
  const cutServerLinks = peerCutOf(etcd);
  return ok({
    spec,
    dir,
    redis,
    etcd,
    resource: resourceNode,
    ...(cutServerLinks === undefined ? {} : { cutServerLinks }),
    link: (id, node) => links.get(linkKey(id, node)),
    portsFor: (id) => ({
      redisPorts: redis.map((n) => portOf(id, n.name)),
      etcdPorts: etcd?.members.map((m) => portOf(id, m.name)) ?? [],
      resourcePort: resourceNode === null ? null : portOf(id, "resource"),
    }),
  });
}

async function startCluster(
  spec: WorldSpec,
  dir: TempDir,
  stops: (() => Promise<void>)[],
): Promise<Result<EtcdCluster, string>> {
  if (spec.etcdBinary === null) return err("etcd: no binary given");
  const etcdDir = join(dir.path, "etcd");
  mkdirSync(etcdDir, { recursive: true });
  const r = await startEtcdCluster({
    binary: spec.etcdBinary,
    size: spec.servers.count,
    dir: etcdDir,
    reaper: spec.reaper,
  });
  if (r.ok) stops.push(() => r.value.stop());
  return r;
}
