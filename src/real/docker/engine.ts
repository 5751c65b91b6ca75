/**
 * Connecting to the Docker engine. lockcheck publishes every container port on 127.0.0.1 and
 * talks to it from this machine, so the engine must run here: a unix socket (the default
 * /var/run/docker.sock, or DOCKER_HOST=unix://…) or a tcp:// address on loopback. Anything
 * else is refused with an explanation rather than half-working.
 */
import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import Docker from "dockerode";
import { err, ok, type Result } from "../../result.js";

export interface EngineAddress {
  /** Human-readable, for messages: "unix:///var/run/docker.sock". */
  readonly display: string;
  readonly options: Docker.DockerOptions;
}

const DEFAULT_SOCKET = "/var/run/docker.sock";

/** Where the engine is, from an explicit value or DOCKER_HOST, else the default socket. */
export function engineAddress(dockerHost = process.env.DOCKER_HOST): Result<EngineAddress, string> {
  if (dockerHost === undefined || dockerHost === "") {
    const rootless = join(homedir(), ".docker", "run", "docker.sock");
    const socketPath = !existsSync(DEFAULT_SOCKET) && existsSync(rootless) ? rootless : DEFAULT_SOCKET;
    return ok({ display: `unix://${socketPath}`, options: { socketPath } });
  }
  if (dockerHost.startsWith("unix://")) {
    const socketPath = dockerHost.slice("unix://".length);
    if (socketPath === "") return err(`DOCKER_HOST=${dockerHost} names no socket path`);
    return ok({ display: dockerHost, options: { socketPath } });
  }
  const tcp = /^tcp:\/\/(127\.\d+\.\d+\.\d+|localhost|\[::1\]):(\d+)\/?$/.exec(dockerHost);
  if (tcp !== null) {
    const host = tcp[1] === "[::1]" ? "::1" : tcp[1]!;
    return ok({ display: dockerHost, options: { host, port: Number(tcp[2]), protocol: "http" } });
  }
  return err(
    `DOCKER_HOST=${dockerHost}: lockcheck needs the Docker engine of this machine (a unix:// socket or ` +
      "tcp:// on loopback), because it reaches containers on ports published on 127.0.0.1",
  );
}

/**
 * A client for the engine, after checking that it answers. The error says what was tried
 * and how to get an engine, e.g. when dockerd is not running.
 */
export async function connectEngine(dockerHost?: string): Promise<Result<Docker, string>> {
  const address = engineAddress(dockerHost);
  if (!address.ok) return address;
  const docker = new Docker(address.value.options);
  try {
    await docker.ping();
    return ok(docker);
  } catch (e) {
    return err(
      `no Docker engine answers at ${address.value.display} (${e instanceof Error ? e.message : String(e)}); ` +
        "start one (Debian: apt-get install docker.io, then dockerd or systemctl start docker), " +
        "or use --cluster process",
    );
  }
}
