/**
 * `fuzz --shrink-time-limit` (`shrinkTimeLimitMs`): how long a real target's counterexample is
 * shrunk on the servers. The "servers" here are the simulator (sim:lease behind redis:lease's
 * name), so a campaign finds its stale write in a few runs and shrinks it without any
 * redis-server.
 */
import { describe, expect, it } from "vitest";
import { fuzzCampaign } from "../../src/api/fuzz.js";
import { findTarget } from "../../src/targets/index.js";
import type { Target } from "../../src/targets/target.js";

function found(name: string): Target {
  const t = findTarget(name);
  if (!t.ok) throw new Error(t.error.message);
  return t.value;
}

/** redis:lease, its sessions running each schedule in sim:lease. */
function leaseOnSimServers(): Target {
  const sim = found("sim:lease");
  return {
    ...found("redis:lease"),
    async openSession() {
      return { run: (s) => sim.run({ ...s, target: sim.name }), serverPids: () => [], close: async () => {} };
    },
  };
}

const campaign = (shrinkTimeLimitMs?: number) =>
  fuzzCampaign({
    target: leaseOnSimServers(),
    faults: ["pause"],
    seed: 1,
    runs: 20,
    runMs: 4000,
    save: false,
    ...(shrinkTimeLimitMs === undefined ? {} : { shrinkTimeLimitMs }),
  });

describe("fuzz --shrink-time-limit", () => {
  it("bounds the shrink on the servers: a limit already past stops it at its budget, a long one lets it finish", async () => {
    const short = await campaign(1);
    expect(short.ok).toBe(true);
    const shortCe = short.ok ? short.value.result.counterexample : null;
    expect(shortCe).not.toBeNull();
    expect(shortCe!.budgetExhausted).toBe(true);

    const unbounded = await campaign(600_000);
    const ce = unbounded.ok ? unbounded.value.result.counterexample : null;
    expect(ce).not.toBeNull();
    expect(ce!.foundAtRun).toBe(shortCe!.foundAtRun);
    expect(ce!.budgetExhausted).toBe(false);
    expect(ce!.shrinkRuns).toBeGreaterThan(shortCe!.shrinkRuns);
  }, 120_000);

  it("is only for real targets, and not with shrinking off", async () => {
    const sim = await fuzzCampaign({ target: "sim:lease", runs: 1, shrinkTimeLimitMs: 1000, save: false });
    expect(sim.ok ? null : sim.error).toEqual({
      field: "shrinkTimeLimitMs",
      message: "only for real targets (redis:…, etcd:…); sim:lease runs in the simulator",
    });
    const off = await fuzzCampaign({
      target: leaseOnSimServers(),
      runs: 1,
      shrink: false,
      shrinkTimeLimitMs: 1000,
      save: false,
    });
    expect(off.ok ? null : off.error).toEqual({
      field: "shrinkTimeLimitMs",
      message: "says how long to shrink, but shrinking is off",
    });
  });
});
