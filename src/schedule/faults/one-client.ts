/**
 * The descriptor parts every fault aimed at one client by number (`client`: pause-at,
 * pause-in-call) shares: which node and client it hits, and how it follows a dropped or
 * renumbered client (the `node` faults' counterpart is one-node.ts).
 */
import type { ClientRemap } from "./descriptor.js";

interface OnOneClient {
  client: number;
}

export function remapClient<F extends OnOneClient>(f: F, remap: ClientRemap): F | null {
  const client = remap.client(f.client);
  if (client === null) return null;
  return client === f.client ? f : { ...f, client };
}

export const fitOneClient = <F extends OnOneClient>(f: F, clients: number): F => ({
  ...f,
  client: f.client % clients,
});

export const theClientNode = (f: OnOneClient): string[] => [`client:${f.client}`];

export const theClient = (f: OnOneClient): number => f.client;
