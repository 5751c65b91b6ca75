/**
 * Schedules on which the simulated etcd lock once spun for ever at one instant of virtual
 * time: a client waited on a watch for what was left of its acquire deadline, a hair (1e-12
 * ms), and the wait ended at the very instant it began, where the client's clock still read
 * less than the deadline; so it found time left, tried again and waited again, at the same
 * instant, for ever (each try a Raft commit: the run slowed to a crawl long before the event
 * cap). Two ways it ended at once: the true time of the watch's timeout, where the drifted clock
 * would read its end, was rounded to the instant it was armed (now the first true time at
 * which the clock reads it: sim/clock.ts `trueTimeOfMono`); and a hair added to the monotonic
 * clock's reading was lost in the rounding, the deadline being that reading itself, when the
 * client's wall clock (which its deadline is on) had been set back and read finer than its
 * monotonic one (now a positive wait ends after now: `monoDeadline`). Found by running real
 * hunts' schedules (etcd:lock, `--faults clock`) in the simulator; the faults here alone make
 * them.
 */
import { expect, it } from "vitest";
import type { Schedule } from "../../src/schedule/schedule.js";
import { prepareSimulation } from "../../src/sim/simulate.js";
import { findTarget } from "../../src/targets/index.js";

const drifted: Schedule = {
  version: 1,
  target: "sim:consensus",
  resource: "unfenced",
  seed: 0,
  options: {
    lockName: "lock",
    horizonMs: 8000,
    latencyMs: { min: 0, max: 0 },
    lossRate: 0,
    servers: 3,
    ttlMs: 1000,
    callTimeoutMs: 1000,
  },
  clients: [
    {
      id: 0,
      cycles: [
        { thinkMs: 250, holdMs: 3347, writes: 11 },
        { thinkMs: 32, holdMs: 3390, writes: 10 },
        { thinkMs: 249, holdMs: 3865, writes: 12 },
        { thinkMs: 214, holdMs: 450, writes: 6 },
      ],
      repeat: true,
    },
    {
      id: 1,
      cycles: [
        { thinkMs: 120, holdMs: 3706, writes: 12 },
        { thinkMs: 51, holdMs: 1223, writes: 4 },
      ],
      repeat: true,
    },
  ],
  faults: [
    { kind: "clock-drift", node: "client:0", at: 5637, rate: 0.667 },
    { kind: "clock-drift", node: "client:0", at: 5292, rate: -0.285 },
  ],
};

const setBack: Schedule = {
  ...drifted,
  clients: [
    {
      id: 0,
      cycles: [
        { thinkMs: 93, holdMs: 1203, writes: 5 },
        { thinkMs: 93, holdMs: 4263, writes: 12 },
      ],
      repeat: true,
    },
    {
      id: 1,
      cycles: [
        { thinkMs: 215, holdMs: 3851, writes: 11 },
        { thinkMs: 42, holdMs: 927, writes: 6 },
        { thinkMs: 141, holdMs: 422, writes: 8 },
      ],
      repeat: true,
    },
  ],
  faults: [
    { kind: "clock-drift", node: "client:0", at: 729, rate: -0.787 },
    { kind: "clock-jump", node: "client:1", at: 6812, deltaMs: -1932 },
    { kind: "clock-drift", node: "client:0", at: 997, rate: -0.521 },
  ],
};

it.each([
  ["a drifted client", drifted, 0],
  ["a client whose wall clock was set back", setBack, 1],
])(
  "sim:consensus finishes a run where %s waits out the last hair of its acquire",
  async (_, schedule, waiter) => {
    const t = findTarget("sim:consensus");
    if (!t.ok) throw new Error(t.error.message);
    // The run takes a few thousand events; the loop hit this cap within seconds.
    const run = await prepareSimulation(schedule, t.value.algorithm, {
      maxEvents: 100_000,
      strict: true,
    }).run();
    // The clients go on cycling to the end of the run (past 8 s of virtual time)…
    expect(run.ops.at(-1)?.time).toBeGreaterThan(8000 * 1e6);
    // …and the one that waited gave up on that acquire.
    expect(run.ops.some((o) => o.process === waiter && o.f === "acquire" && o.type === "fail")).toBe(true);
  },
);
