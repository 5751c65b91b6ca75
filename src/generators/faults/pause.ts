/**
 * Pauses: a client frozen at a time (a GC pause, SIGSTOP), a client frozen at a named point
 * inside the lock algorithm (`pause-at`: right after acquiring, while acquire replies are in
 * flight, before a write or a release), a lock server (or the current leader) frozen, and a
 * client frozen some ms into a call (`pause-in-call`, in pause-in-call.ts).
 * Durations shrink toward 1 ms, start times toward 0, checkpoint occurrences toward the first.
 */
import fc from "fast-check";
import type { FaultBounds, PauseKind } from "../bounds.js";
import { clientRefs, nodeArb, serverRefs } from "../nodes.js";
import { pauseInCallArb } from "./pause-in-call.js";
import type { PauseAtFault, PauseFault, PauseInCallFault } from "./types.js";

export function clientPauseArb(b: FaultBounds): fc.Arbitrary<PauseFault> {
  return fc.record({
    kind: fc.constant("pause" as const),
    node: nodeArb(clientRefs(b.maxClients)),
    at: fc.integer({ min: 0, max: b.horizonMs }),
    durationMs: fc.integer({ min: b.minClientPauseMs, max: b.maxPauseMs }),
  });
}

export function serverPauseArb(b: FaultBounds): fc.Arbitrary<PauseFault> {
  return fc.record({
    kind: fc.constant("pause" as const),
    node: nodeArb(serverRefs(b.servers, b.leader)),
    at: fc.integer({ min: 0, max: b.horizonMs }),
    durationMs: fc.integer({ min: 1, max: b.maxPauseMs }),
  });
}

export function pauseAtArb(b: FaultBounds): fc.Arbitrary<PauseAtFault> {
  return fc.record({
    kind: fc.constant("pause-at" as const),
    client: fc.integer({ min: 0, max: b.maxClients - 1 }),
    checkpoint: fc.constantFrom(...b.checkpoints),
    occurrence: fc.integer({ min: 0, max: Math.max(0, 2 * b.maxCycles - 1) }),
    durationMs: fc.integer({ min: b.minClientPauseMs, max: b.maxPauseMs }),
  });
}

const PAUSE_WEIGHTS: Record<PauseKind, number> = { checkpoint: 3, client: 2, server: 1, "in-call": 3 };

/**
 * A pause of one of the kinds `b.pauses` allows; client pauses are the interesting ones for
 * locks, so they come first and most often.
 */
export function pauseArb(b: FaultBounds): fc.Arbitrary<PauseFault | PauseAtFault | PauseInCallFault> {
  const make: Record<PauseKind, () => fc.Arbitrary<PauseFault | PauseAtFault | PauseInCallFault>> = {
    checkpoint: () => pauseAtArb(b),
    client: () => clientPauseArb(b),
    server: () => serverPauseArb(b),
    "in-call": () => pauseInCallArb(b),
  };
  const kinds = (["checkpoint", "client", "server", "in-call"] as const).filter((k) => b.pauses.includes(k));
  return fc.oneof(...kinds.map((k) => ({ arbitrary: make[k](), weight: PAUSE_WEIGHTS[k] })));
}
