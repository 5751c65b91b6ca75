/**
 * Pauses: a client frozen at a time (a GC pause, SIGSTOP), a client frozen at a named point
 * inside the lock algorithm (`pause-at`: right after acquiring, while acquire replies are in
 * flight, before a write or a release), and a lock server (or the current leader) frozen.
 * Durations shrink toward 1 ms, start times toward 0, checkpoint occurrences toward the first.
 */
import fc from "fast-check";
import { checkpointSchema } from "../../src/schedule/schedule.js";
import type { FaultBounds } from "../bounds.js";
import { clientRefs, nodeArb, serverRefs } from "../nodes.js";
import type { PauseAtFault, PauseFault } from "./types.js";

export function clientPauseArb(b: FaultBounds): fc.Arbitrary<PauseFault> {
  return fc.record({
    kind: fc.constant("pause" as const),
    node: nodeArb(clientRefs(b.maxClients)),
    at: fc.integer({ min: 0, max: b.horizonMs }),
    durationMs: fc.integer({ min: 1, max: b.maxPauseMs }),
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
    checkpoint: fc.constantFrom(...checkpointSchema.options),
    occurrence: fc.integer({ min: 0, max: Math.max(0, 2 * b.maxCycles - 1) }),
    durationMs: fc.integer({ min: 1, max: b.maxPauseMs }),
  });
}

/** Any pause; client pauses are the interesting ones for locks, so they come first and most. */
export function pauseArb(b: FaultBounds): fc.Arbitrary<PauseFault | PauseAtFault> {
  return fc.oneof(
    { arbitrary: pauseAtArb(b), weight: 3 },
    { arbitrary: clientPauseArb(b), weight: 2 },
    { arbitrary: serverPauseArb(b), weight: 1 },
  );
}
