/**
 * The two bridge networks of a docker run:
 *
 * - `access`: every container's client port is published on 127.0.0.1 through this one;
 *   IP masquerading is off, so nothing on it is routed to the outside world;
 * - `peers`: internal (no route out at all); members reach each other here, and only here,
 *   by their Compose service names. Isolating a member from the others disconnects it from
 *   this network alone, so clients still reach it, as in a partition between servers.
 */
import type Docker from "dockerode";
import { type Labels, runLabels } from "./labels.js";

export interface RunNetworks {
  readonly access: string;
  readonly peers: string;
}

/** Docker object names allow [a-zA-Z0-9][a-zA-Z0-9_.-]*. */
export function dockerName(...parts: string[]): string {
  return parts.join("-").replace(/[^a-zA-Z0-9_.-]/g, "-");
}

export async function createRunNetworks(docker: Docker, runId: string): Promise<RunNetworks> {
  const labels: Labels = runLabels(runId);
  const access = dockerName("lockcheck", runId, "access");
  const peers = dockerName("lockcheck", runId, "peers");
  await docker.createNetwork({
    Name: access,
    Driver: "bridge",
    CheckDuplicate: true,
    Labels: labels,
    Options: { "com.docker.network.bridge.enable_ip_masquerade": "false" },
  });
  await docker.createNetwork({
    Name: peers,
    Driver: "bridge",
    CheckDuplicate: true,
    Internal: true,
    Labels: labels,
  });
  return { access, peers };
}
