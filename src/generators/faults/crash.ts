/**
 * Crashes: a client that dies holding the lock (never restarted, never releases) or a lock
 * server that loses its state (restarted empty after a while, or left down). Shrinks toward
 * an early crash of the first node, left down.
 */
import fc from "fast-check";
import type { FaultBounds } from "../bounds.js";
import { clientRefs, nodeArb, serverRefs } from "../nodes.js";
import type { CrashFault } from "./types.js";

export function clientCrashArb(b: FaultBounds): fc.Arbitrary<CrashFault> {
  return fc.record({
    kind: fc.constant("crash" as const),
    node: nodeArb(clientRefs(b.maxClients)),
    at: fc.integer({ min: 0, max: b.horizonMs }),
    restartAfterMs: fc.constant(null),
  });
}

export function serverCrashArb(b: FaultBounds): fc.Arbitrary<CrashFault> {
  return fc.record({
    kind: fc.constant("crash" as const),
    node: nodeArb(serverRefs(b.servers, b.leader)),
    at: fc.integer({ min: 0, max: b.horizonMs }),
    restartAfterMs: fc.option(fc.integer({ min: 1, max: b.maxRestartMs }), { nil: null }),
  });
}

export function crashArb(b: FaultBounds): fc.Arbitrary<CrashFault> {
  return fc.oneof(serverCrashArb(b), clientCrashArb(b));
}
