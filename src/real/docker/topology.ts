/**
 * Which Compose file of docker/ a real target runs on, and the image overrides.
 *
 * Topologies come as the files ship them: 1 Redis (redis:lease, redis:lease-token), 5 Redis
 * (redis:redlock), 3 etcd members (etcd:*), each with the resource. A schedule asking for
 * another server count needs its own file (`--compose FILE`), with services playing
 * server:0 … server:N-1 and the resource.
 */
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { err, type InputError, ok, type Result } from "../../result.js";
import { loadTopology, type Topology } from "./compose.js";

/** Image overrides; unset ones come from LOCKCHECK_*_IMAGE, else the Compose file's defaults. */
export interface DockerImages {
  redis?: string;
  etcd?: string;
}

/** The server software a target's lock servers run. */
export type ServerKind = "redis" | "etcd";

const SHIPPED: Record<ServerKind, Record<number, string>> = {
  redis: { 1: "compose.redis.yml", 5: "compose.redlock.yml" },
  etcd: { 3: "compose.etcd.yml" },
};

/**
 * The package's docker/ folder, found from this file whether it runs from sources
 * (src/real/docker) or from the build (dist/src/real/docker).
 */
export function dockerDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    if (existsSync(join(dir, "docker", "compose.redis.yml"))) return join(dir, "docker");
    dir = dirname(dir);
  }
  throw new Error("lockcheck: the docker/ folder of the package is missing (reinstall lockcheck)");
}

/** The shipped Compose file for `servers` servers of `kind`, or an error listing what exists. */
export function shippedComposeFile(kind: ServerKind, servers: number): Result<string, InputError> {
  const name = SHIPPED[kind][servers];
  if (name !== undefined) return ok(join(dockerDir(), name));
  const sizes = Object.keys(SHIPPED[kind]).join(" or ");
  return err({
    field: "options.servers",
    message:
      `docker clusters ship with ${sizes} ${kind} server(s), not ${servers}; ` +
      "pass a Compose file of your own with --compose (see docker/README.md)",
  });
}

/** The topology for a run: `composeFile` if given, else the shipped file for kind and size. */
export function topologyFor(
  kind: ServerKind,
  servers: number,
  opts: { images?: DockerImages; composeFile?: string },
): Result<Topology, InputError> {
  let path: string;
  if (opts.composeFile !== undefined) path = opts.composeFile;
  else {
    const shipped = shippedComposeFile(kind, servers);
    if (!shipped.ok) return shipped;
    path = shipped.value;
  }
  const topology = loadTopology(path, {
    LOCKCHECK_REDIS_IMAGE: opts.images?.redis,
    LOCKCHECK_ETCD_IMAGE: opts.images?.etcd,
  });
  if (!topology.ok) return topology;
  const servicesOfServers = topology.value.services.filter((s) => s.node !== "resource");
  if (servicesOfServers.length !== servers) {
    return err({
      file: path,
      message: `has ${servicesOfServers.length} lock server(s); the schedule runs ${servers} (options.servers)`,
    });
  }
  const wrongProbe = servicesOfServers.find((s) => s.probe !== kind);
  if (wrongProbe !== undefined) {
    return err({
      file: path,
      message: `service ${wrongProbe.service} is probed as ${wrongProbe.probe}, not ${kind}`,
    });
  }
  return topology;
}
