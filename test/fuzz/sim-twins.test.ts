/**
 * The simulator twins a real failure is shrunk in first (shrink-real.ts `simTwinsOf`): the
 * twin, whose etcd ends a lease as late as a real etcd may, and for etcd the twin again with
 * leases ending as soon as etcd may. A failure that needed a lease to end early fails only in
 * the second, and is shrunk there rather than on real servers.
 */
import { describe, expect, it } from "vitest";
import { checkOps } from "../../src/checkers/index.js";
import { isViolation } from "../../src/runner/execute.js";
import { shrinkOnRealServers, simTwinsOf } from "../../src/runner/shrink/shrink-real.js";
import type { Schedule } from "../../src/schedule/schedule.js";
import { withEarliestLeaseEnd } from "../../src/targets/sim.js";
import type { Target } from "../../src/targets/target.js";
import { scheduleFor, target } from "./schedules.js";

const consensus = target("sim:consensus");
const earliest = withEarliestLeaseEnd(consensus)!;

/** Client 0 suspended 754 ms into its first write: its lease ends 1,000–1,500 ms after its last keep-alive. */
const needsEarlyEnd: Schedule = scheduleFor("sim:consensus", {
  resource: "unfenced",
  seed: 0,
  clients: [[{ thinkMs: 0, holdMs: 348, writes: 2 }], [{ thinkMs: 49, holdMs: 0, writes: 1 }]],
  faults: [
    {
      kind: "pause-in-call",
      client: 0,
      call: "write",
      occurrence: 0,
      afterMs: 0,
      durationMs: 754,
      clocks: "stopped",
    },
  ],
});

const fails = async (t: Target, s: Schedule) => isViolation(checkOps((await t.run(s)).ops));

/** etcd:lock as the shrinker sees it, its "real" runs those of a world whose leases end early. */
function etcdEndingEarly(): Target & { runs: () => number } {
  let runs = 0;
  return {
    ...target("etcd:lock"),
    runs: () => runs,
    async run(s) {
      runs++;
      return earliest.run({ ...s, target: "sim:consensus" });
    },
  };
}

describe("simulator twins of real targets", () => {
  it("etcd:lock has two, the twin first; redis:lease one; a simulated target none", () => {
    const twins = simTwinsOf(target("etcd:lock"));
    expect(twins.map((t) => t.name)).toEqual(["sim:consensus", "sim:consensus"]);
    expect(twins[0]).toBe(consensus);
    expect(simTwinsOf(target("redis:lease"))).toEqual([target("sim:lease")]);
    expect(simTwinsOf(consensus)).toEqual([]);
  });

  it("a holder suspended for less than TTL + 500 ms fails only where leases end early", async () => {
    expect(await fails(consensus, needsEarlyEnd)).toBe(false);
    expect(await fails(earliest, needsEarlyEnd)).toBe(true);
  });

  it("such a failure is shrunk in the second twin and confirmed, not shrunk on the servers", async () => {
    const real = etcdEndingEarly();
    const r = await shrinkOnRealServers(
      real,
      { ...needsEarlyEnd, target: "etcd:lock" },
      {
        kind: "stale-write",
        runs: 2,
        marginMs: 50,
        budget: { maxRuns: 20 },
      },
    );
    expect(r.shrunkIn).toBe("sim");
    expect(r.failingRun).not.toBeNull();
    expect(r.confirmed).toEqual({ failed: 2, runs: 2 });
    // Two probes of the input (one per twin), then the second twin's shrinking.
    expect(r.simRuns).toBeGreaterThan(2);
    expect(real.runs()).toBe(2);
  });
});
