/**
 * The client links of one run on shared servers (shared-world.ts, docker/shared-world.ts):
 * a fresh TCP proxy per client↔server link, so no cut or delay outlives its run.
 */
import { type LinkProxy, startLinkProxy } from "./proxy/link-proxy.js";
import type { RealWorld } from "./world.js";

export type ClientLinks = Pick<RealWorld, "link" | "portsFor"> & { close(): Promise<void> };

const linkKey = (clientId: number, node: string): string => `client:${clientId}|${node}`;

/** Proxies from each of `clientIds` to each of `targets` (a server's node name and port). */
export async function openClientLinks(
  clientIds: readonly number[],
  targets: readonly { node: string; port: number }[],
  w: Pick<RealWorld, "redis" | "etcd" | "resource">,
): Promise<ClientLinks> {
  const links = new Map<string, LinkProxy>();
  for (const cid of clientIds) {
    for (const t of targets) links.set(linkKey(cid, t.node), await startLinkProxy(t.port));
  }
  const portOf = (cid: number, node: string): number => links.get(linkKey(cid, node))!.port;
  return {
    link: (cid, node) => links.get(linkKey(cid, node)),
    portsFor: (cid) => ({
      redisPorts: w.redis.map((n) => portOf(cid, n.name)),
      etcdPorts: w.etcd?.members.map((m) => portOf(cid, m.name)) ?? [],
      resourcePort: w.resource === null ? null : portOf(cid, "resource"),
    }),
    close: async () => {
      await Promise.all([...links.values()].map((p) => p.close()));
    },
  };
}

/**
 * What a run's world on shared servers shows alike in both shared worlds: `w`'s servers,
 * reached by `clientIds` through `links`.
 */
export function sharedRunView(
  w: Pick<RealWorld, "spec" | "dir" | "redis" | "etcd" | "resource">,
  clientIds: readonly number[],
  links: ClientLinks,
): Omit<RealWorld, "stop" | "cutServerLinks"> {
  return {
    spec: { ...w.spec, clientIds },
    dir: w.dir,
    redis: w.redis,
    etcd: w.etcd,
    resource: w.resource,
    link: links.link,
    portsFor: links.portsFor,
  };
}
