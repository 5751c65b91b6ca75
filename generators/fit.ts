/**
 * Fits generated faults to the schedule they end up in: client references beyond the actual
 * number of clients fold onto existing clients (client:5 of 3 clients becomes client:2), a
 * partition loses nodes that are on both of its sides, and faults left meaningless (a
 * partition with an empty side, a delay from a node to itself) are dropped. This keeps every
 * schedule valid however fast-check shrinks the client list.
 */
import type { Fault, NodeRef } from "../src/schedule/schedule.js";

function fitNode(ref: NodeRef, clients: number): NodeRef {
  const m = /^client:(\d+)$/.exec(ref);
  return m === null ? ref : `client:${Number(m[1]) % clients}`;
}

function fitSide(side: readonly NodeRef[], clients: number): NodeRef[] {
  return [...new Set(side.map((n) => fitNode(n, clients)))];
}

export function fitFault(f: Fault, clients: number): Fault | null {
  switch (f.kind) {
    case "pause":
    case "crash":
    case "clock-jump":
    case "clock-drift":
      return { ...f, node: fitNode(f.node, clients) };
    case "pause-at":
    case "pause-in-call":
      return { ...f, client: f.client % clients };
    case "delay": {
      const from = fitNode(f.from, clients);
      const to = fitNode(f.to, clients);
      return from === to ? null : { ...f, from, to };
    }
    case "partition": {
      const a = fitSide(f.a, clients);
      const b = fitSide(f.b, clients).filter((n) => !a.includes(n));
      return b.length === 0 ? null : { ...f, a, b };
    }
  }
}

export function fitFaultsToClients(faults: readonly Fault[], clients: number): Fault[] {
  if (clients < 1) throw new RangeError("fitFaultsToClients: a schedule needs at least one client");
  return faults.map((f) => fitFault(f, clients)).filter((f): f is Fault => f !== null);
}
