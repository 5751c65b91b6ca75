/** Schedules shared by the real-server tests of both cluster backends (processes and docker). */
import type { Schedule } from "../../src/schedule/schedule.js";
import { schedule } from "./helpers.js";

/** Client 0 is paused right after acquiring, for 3× the TTL; client 1 keeps locking meanwhile. */
export function pauseAfterAcquire(
  target: string,
  resource: Schedule["resource"],
  servers: number,
  ttlMs: number,
): Schedule {
  return schedule(
    target,
    resource,
    { servers, ttlMs, callTimeoutMs: 300, horizonMs: 3000 },
    [
      { id: 0, cycles: [{ thinkMs: 0, holdMs: 200, writes: 2 }] },
      { id: 1, cycles: Array.from({ length: 4 }, () => ({ thinkMs: ttlMs / 2, holdMs: 200, writes: 2 })) },
    ],
    [{ kind: "pause-at", client: 0, checkpoint: "acquired", occurrence: 0, durationMs: 3 * ttlMs }],
  );
}
