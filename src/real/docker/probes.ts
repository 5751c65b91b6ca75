/**
 * Whether a server in a container answers, asked from this machine through its published
 * 127.0.0.1 port: Redis answers PING; an etcd member reports itself healthy (it has a leader).
 * Docker's proxy accepts a connection before the server inside listens, so only a real
 * answer counts.
 */
import { getJson, LOOPBACK, redisPing } from "../cluster/net.js";
import type { ProbeKind } from "./compose.js";

export async function answers(probe: ProbeKind, port: number, timeoutMs = 500): Promise<boolean> {
  if (probe === "redis") return redisPing(port, timeoutMs);
  const body = (await getJson(`http://${LOOPBACK}:${port}/health`, timeoutMs)) as { health?: string } | null;
  return body?.health === "true";
}
