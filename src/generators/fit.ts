/**
 * Fits generated faults to the schedule they end up in: client references beyond the actual
 * number of clients fold onto existing clients (client:5 of 3 clients becomes client:2), a
 * partition loses nodes that are on both of its sides, and faults left meaningless (a
 * partition with an empty side, a delay from a node to itself) are dropped. This keeps every
 * schedule valid however fast-check shrinks the client list. Each kind fits itself (`fit` in
 * src/schedule/faults/<kind>.ts).
 */
import { fitFault } from "../schedule/faults/index.js";
import type { Fault } from "../schedule/schedule.js";

export { fitFault };

export function fitFaultsToClients(faults: readonly Fault[], clients: number): Fault[] {
  if (clients < 1) throw new RangeError("fitFaultsToClients: a schedule needs at least one client");
  return faults.map((f) => fitFault(f, clients)).filter((f): f is Fault => f !== null);
}
