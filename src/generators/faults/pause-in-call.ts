/**
 * Pauses inside calls (`pause-in-call`): a client frozen a few ms after it invoked an acquire,
 * a write or a release — while its requests or the replies are in flight (with a reply delay,
 * for longer) — the GC pause during acquisition that a lock without a validity check does not
 * notice. Acquires come most often; `afterMs` is 0 (just after the requests went out) half of
 * the time. Shrinks toward the first acquire, 0 ms in, and 1 ms long.
 */
import fc from "fast-check";
import type { FaultBounds } from "../bounds.js";
import type { PauseInCallFault } from "./types.js";

export function pauseInCallArb(b: FaultBounds): fc.Arbitrary<PauseInCallFault> {
  return fc.record({
    kind: fc.constant("pause-in-call" as const),
    client: fc.integer({ min: 0, max: b.maxClients - 1 }),
    call: fc.oneof(
      { arbitrary: fc.constant("acquire" as const), weight: 3 },
      { arbitrary: fc.constantFrom("write" as const, "release" as const), weight: 1 },
    ),
    occurrence: fc.integer({ min: 0, max: Math.max(0, 2 * b.maxCycles - 1) }),
    afterMs: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: b.maxPauseAfterMs })),
    durationMs: fc.integer({ min: b.minClientPauseMs, max: b.maxPauseMs }),
  });
}
