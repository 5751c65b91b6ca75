/**
 * Which faults of a schedule can reach a run whose lock servers lockcheck does not control
 * (the user's own, `--redis-endpoints` / `--etcd-endpoints`): lockcheck starts no process for
 * them and proxies none of their links, so only what it runs itself can be hit — its client
 * processes (pause, pause-at, clock jump/drift, crash) and its own resource.
 */
import { faultNodes } from "../schedule/faults/index.js";
import type { Fault, NodeRef } from "../schedule/schedule.js";

const isServer = (node: NodeRef): boolean => node.startsWith("server:");

/** Whether `fault` acts on a server or a link to one (and so reaches nothing here). */
function touchesServer(fault: Fault): boolean {
  return faultNodes(fault).some(isServer);
}

/** Splits faults into those that reach a run on servers lockcheck does not run, and the rest. */
export function splitFaultsForExternalServers(faults: readonly Fault[]): { kept: Fault[]; ignored: Fault[] } {
  const kept: Fault[] = [];
  const ignored: Fault[] = [];
  for (const f of faults) (touchesServer(f) ? ignored : kept).push(f);
  return { kept, ignored };
}
