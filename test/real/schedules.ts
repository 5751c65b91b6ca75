/** Schedules shared by the real-server tests of both cluster backends (processes and docker). */
import type { ClientPlan, Fault, Schedule } from "../../src/schedule/schedule.js";
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

const cycles = (n: number, thinkMs: number) =>
  Array.from({ length: n }, () => ({ thinkMs, holdMs: 300, writes: 2 }));

/**
 * etcd:lock with a 1 s lease: client 0 does three cycles, the others keep contending for
 * `rounds` cycles each (longer horizons — docker — need more rounds to keep contending).
 */
export function etcdSchedule(
  resource: Schedule["resource"],
  faults: Fault[],
  {
    clients = 2,
    horizonMs = 6000,
    rounds = 12,
  }: { clients?: number; horizonMs?: number; rounds?: number } = {},
): Schedule {
  return schedule(
    "etcd:lock",
    resource,
    { servers: 3, ttlMs: 1000, callTimeoutMs: 1000, horizonMs },
    [
      { id: 0, cycles: [{ thinkMs: 0, holdMs: 300, writes: 2 }, ...cycles(2, 300)] },
      ...Array.from({ length: clients - 1 }, (_, i) => ({
        id: i + 1,
        cycles: cycles(rounds, 300 + 100 * i),
      })),
    ],
    faults,
  );
}

/** Client 0 pauses right after its first acquire for 3 s: its 1 s lease expires meanwhile. */
export const etcdClientPause: Fault = {
  kind: "pause-at",
  client: 0,
  checkpoint: "acquired",
  occurrence: 0,
  durationMs: 3000,
};

/**
 * A lock on one redis-server with a 1 s TTL: client 0 holds the lock for `holder`; client 1
 * tries every 300 ms, 12 times, and takes it whenever client 0's key is gone.
 */
export function holderAndEager(
  target: string,
  holder: ClientPlan["cycles"][number],
  faults: Fault[],
): Schedule {
  return schedule(
    target,
    "unfenced",
    { servers: 1, ttlMs: 1000, callTimeoutMs: 500, horizonMs: 6000 },
    [
      { id: 0, cycles: [holder] },
      { id: 1, cycles: Array.from({ length: 12 }, () => ({ thinkMs: 300, holdMs: 100, writes: 1 })) },
    ],
    faults,
  );
}

/**
 * Kleppmann's delayed packet: client 0 holds the lock and writes at 300 ms; the network holds
 * that write back for 1.5 s, so client 0 gives up on it (timeout) and releases. Client 1 then
 * takes the lock and writes; client 0's write reaches the resource long after, applied after
 * client 1's — unless the resource fences it. Client 0 stays up (a second, idle cycle) so that
 * its connection still carries the write when the delay ends.
 */
export function delayedWrite(target: string, resource: Schedule["resource"], ttlMs: number): Schedule {
  return schedule(
    target,
    resource,
    { servers: 1, ttlMs, callTimeoutMs: 200, horizonMs: 2000 },
    [
      {
        id: 0,
        cycles: [
          { thinkMs: 0, holdMs: 300, writes: 1 },
          { thinkMs: 2500, holdMs: 0, writes: 0 },
        ],
      },
      { id: 1, cycles: [{ thinkMs: 100, holdMs: 0, writes: 1 }] },
    ],
    [{ kind: "delay", from: "client:0", to: "resource", at: 0, durationMs: 1000, extraMs: 1500 }],
  );
}
