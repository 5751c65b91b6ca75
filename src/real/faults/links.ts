/**
 * Mapping schedule links onto client link proxies: client↔server and client↔resource traffic.
 * Links between two servers are not among them: a partition cuts those through the world's
 * `cutServerLinks` where it has one (etcd's peer links, docker's member isolation), and records
 * them as unsupported where it has none, rather than silently pretend.
 */
import type { Direction, LinkProxy } from "../proxy/link-proxy.js";
import type { RealWorld } from "../world.js";
import type { RealNode } from "./context.js";

export interface DirectedLink {
  proxy: LinkProxy;
  /** The direction of traffic from `from` to `to` on that proxy. */
  dir: Direction;
}

/** The proxy and direction carrying traffic from → to, or null if lockcheck has no such link. */
export function directedLink(world: RealWorld, from: RealNode, to: RealNode): DirectedLink | null {
  if (from.kind === "client" && to.kind !== "client" && to.kind !== "etcd-resource") {
    const proxy = world.link(from.id, to.name);
    return proxy === undefined ? null : { proxy, dir: "up" };
  }
  if (to.kind === "client" && from.kind !== "client" && from.kind !== "etcd-resource") {
    const proxy = world.link(to.id, from.name);
    return proxy === undefined ? null : { proxy, dir: "down" };
  }
  return null;
}

/** Why a pair has no proxied link (for the nemesis record), or null if it has one or needs none. */
export function unsupportedPair(from: RealNode, to: RealNode): string | null {
  if (from.kind === "client" && to.kind === "client") return null;
  if (from.kind === "etcd-resource" || to.kind === "etcd-resource") return null;
  if (from.kind !== "client" && to.kind !== "client") return `${from.name}↔${to.name}`;
  return null;
}
