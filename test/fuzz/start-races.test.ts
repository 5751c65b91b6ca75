/**
 * Start races on real servers (robust-failure.ts `withStartRacesSettled`, used at the end of
 * shrink-real.ts): two clients that start within a margin of each other race for their first
 * grant, and on real servers whichever process runs first wins. A counterexample that needed
 * one of them to win is kept with that client starting first, so a replay need not win the
 * race again.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Op } from "../../src/history/op.js";
import { probeViolation } from "../../src/runner/same-violation.js";
import { grantOrder, withStartRacesSettled } from "../../src/runner/shrink/robust-failure.js";
import { shrinkOnRealServers } from "../../src/runner/shrink/shrink-real.js";
import type { Schedule } from "../../src/schedule/schedule.js";
import { scheduleFor, target } from "./schedules.js";

const lease = target("sim:lease");
const MARGIN = 50;

/** Client `id`'s first acquire granted: all a grant order needs. */
const granted = (id: number): Op => ({ index: 0, time: 0, process: id, type: "ok", f: "acquire" }) as Op;

const starts = (s: Schedule): number[] => s.clients.map((c) => c.cycles[0]?.thinkMs ?? -1);

/**
 * Client 0 and client 1 start 2 ms apart; client 0 is frozen for 3 s once it holds the lock.
 * Client 0 first: its lease runs out while it is frozen, client 1 takes the lock and writes, and
 * client 0 writes when it wakes (a stale write). Client 1 first: client 0 gets the lock after it,
 * and nobody takes it while client 0 sleeps.
 */
function racingPause(seed: number): Schedule {
  return scheduleFor("sim:lease", {
    resource: "unfenced",
    seed,
    clients: [
      [{ thinkMs: 246, holdMs: 500, writes: 1 }],
      [
        { thinkMs: 248, holdMs: 100, writes: 1 },
        { thinkMs: 0, holdMs: 100, writes: 1 },
      ],
    ],
    faults: [{ kind: "pause-at", client: 0, checkpoint: "acquired", occurrence: 0, durationMs: 3000 }],
  });
}

describe("start races", () => {
  it("the client granted first keeps its start; each after it starts 2 margins after the one before", () => {
    const s = racingPause(1);
    const first0 = withStartRacesSettled(s, [granted(0), granted(1)], MARGIN)!;
    expect(starts(first0)).toEqual([246, 246 + 2 * MARGIN]);
    const first1 = withStartRacesSettled(s, [granted(1), granted(0)], MARGIN)!;
    expect(starts(first1)).toEqual([248 + 2 * MARGIN, 248]);
    // Only the first cycle moves; faults stay.
    expect(first1.clients[1]).toEqual(s.clients[1]);
    expect(first1.faults).toEqual(s.faults);
  });

  it("no race, or no margin: nothing to settle", () => {
    const apart = scheduleFor("sim:lease", {
      resource: "unfenced",
      clients: [[{ thinkMs: 0, holdMs: 10, writes: 1 }], [{ thinkMs: 51, holdMs: 10, writes: 1 }]],
    });
    expect(withStartRacesSettled(apart, [granted(0), granted(1)], MARGIN)).toBeNull();
    expect(withStartRacesSettled(racingPause(1), [granted(0), granted(1)], 0)).toBeNull();
  });

  it("property: starts only move later; racers start in grant order, 2 margins apart; the others stay", () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 400 }), { minLength: 2, maxLength: 6 }),
        fc.infiniteStream(fc.nat()),
        (startTimes, picks) => {
          const s = scheduleFor("sim:lease", {
            resource: "unfenced",
            clients: startTimes.map((t) => [{ thinkMs: t, holdMs: 10, writes: 1 }]),
          });
          const ids = s.clients.map((c) => c.id);
          const order = [...ids].sort((a, b) => (picks.next().value % 3) - 1 || a - b);
          const ops = order.map(granted);
          const out = withStartRacesSettled(s, ops, MARGIN);
          const racing = (i: number) =>
            startTimes.some((t, j) => j !== i && Math.abs(t - startTimes[i]!) <= MARGIN);
          if (!ids.some(racing)) {
            expect(out).toBeNull();
            return;
          }
          const after = out === null ? startTimes : starts(out);
          ids.forEach((i) => {
            expect(after[i]).toBeGreaterThanOrEqual(startTimes[i]!);
            if (!racing(i)) expect(after[i]).toBe(startTimes[i]);
          });
          const racers = grantOrder(s, ops).filter(racing);
          for (let k = 1; k < racers.length; k++)
            expect(after[racers[k]!]! - after[racers[k - 1]!]!).toBeGreaterThanOrEqual(2 * MARGIN);
        },
      ),
      { numRuns: 300, seed: 5 },
    );
  });

  it("in the simulator the race goes either way; settled as client 0 won it, it fails on every draw", async () => {
    let failedRaced = 0;
    let failedSettled = 0;
    for (let seed = 1; seed <= 20; seed++) {
      const s = racingPause(seed);
      if ((await probeViolation(lease, s, "stale-write")).fails) failedRaced++;
      const settled = withStartRacesSettled(s, [granted(0), granted(1)], MARGIN)!;
      if ((await probeViolation(lease, settled, "stale-write")).fails) failedSettled++;
    }
    expect(failedRaced).toBeGreaterThan(0);
    expect(failedRaced).toBeLessThan(20);
    expect(failedSettled).toBe(20);
  });

  it("shrinking a real failure ends with its start race settled as its failing run settled it", async () => {
    // "Real servers" that are the simulator with a new latency draw per run: the race goes
    // either way, as on real servers. The schedule as found failed with client 0 first.
    let draw = 0;
    const found = racingPause(1);
    const winner0 = await (async () => {
      for (let seed = 1; ; seed++) {
        const r = await probeViolation(lease, racingPause(seed), "stale-write");
        if (r.fails) return { seed, evidence: r.evidence! };
      }
    })();
    const r = await shrinkOnRealServers(
      { ...lease, deterministic: false },
      { ...found, seed: winner0.seed },
      {
        kind: "stale-write",
        marginMs: MARGIN,
        simFirst: false,
        runs: 4,
        needed: 4,
        budget: { maxRuns: 0 },
        evidence: winner0.evidence,
        runOnServers: async (s) => (await lease.run({ ...s, seed: (s.seed + 7919 * ++draw) >>> 0 })).ops,
      },
    );
    expect(starts(r.schedule)).toEqual([246, 246 + 2 * MARGIN]);
    expect(r.failingRun).not.toBeNull();
    expect(r.confirmed).toEqual({ failed: 4, runs: 4 });
  });
});
