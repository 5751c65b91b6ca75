/**
 * Never a "counterexample" whose own run passed: when a failure of a non-deterministic target
 * does not repeat, shrinking says so (`failingRun: null`, fuzz's `shrink: "not-kept"` with the
 * schedule and the run as found), and `lockcheck shrink` on a schedule that does not fail says
 * so and saves nothing. The flaky target here is the simulator's lease that fails once and
 * then never again (its faults are dropped after the first failing run).
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { shrinkFailing } from "../../src/api/shrink.js";
import { checkOps } from "../../src/checkers/index.js";
import { formatShrinkLog } from "../../src/report/shrink-log.js";
import { isViolation } from "../../src/runner/execute.js";
import { fuzz } from "../../src/runner/fuzz.js";
import { shrinkOnRealServers, simTwinOf } from "../../src/runner/shrink/shrink-real.js";
import type { Target } from "../../src/targets/target.js";
import { scheduleFor, target } from "./schedules.js";

const lease = target("sim:lease");

/** sim:lease that fails at most once: after its first failing run, every run drops the faults. */
function failsOnce(): Target & { runs: () => number } {
  let failed = false;
  let runs = 0;
  return {
    ...lease,
    name: "flaky:lease",
    deterministic: false,
    runs: () => runs,
    async run(s) {
      runs++;
      const r = await lease.run(failed ? { ...s, faults: [] } : s);
      if (isViolation(checkOps(r.ops))) failed = true;
      return r;
    },
  };
}

const failing = scheduleFor("sim:lease", {
  resource: "unfenced",
  clients: [
    [{ thinkMs: 0, holdMs: 10, writes: 1 }],
    [{ thinkMs: 100, holdMs: 10, writes: 1 }],
    [{ thinkMs: 300, holdMs: 10, writes: 1 }],
  ],
  faults: [{ kind: "pause-at", client: 0, checkpoint: "acquired", occurrence: 0, durationMs: 2500 }],
});

describe("a failure that does not repeat", () => {
  it("shrinkOnRealServers returns no failing run, after trying the twin, real candidates and the input", async () => {
    const flaky = failsOnce();
    const first = await flaky.run(failing);
    expect(isViolation(checkOps(first.ops))).toBe(true);
    expect(simTwinOf(flaky)).toBe(lease);
    const r = await shrinkOnRealServers(flaky, failing, {
      kind: "stale-write",
      runs: 2,
      marginMs: 50,
      budget: { maxRuns: 20 },
    });
    expect(r.failingRun).toBeNull();
    expect(r.confirmed.failed).toBe(0);
    expect(r.simRuns).toBeGreaterThan(0);
    expect(r.realRuns).toBeGreaterThan(1);
  });

  it("lockcheck shrink's answer carries what ran on the servers, to show since nothing is saved", async () => {
    const r = await shrinkFailing(failsOnce(), failing, {
      maxRuns: 20,
      runs: 2,
      marginMs: 50,
      simFirst: true,
    });
    expect(r.kind).toBe("not-kept");
    const log = (r as Extract<typeof r, { kind: "not-kept" }>).shrinkLog!;
    expect(log.trials.length).toBeGreaterThan(0);
    expect(log.trials.every((t) => !t.kept && !t.runs.includes("failed"))).toBe(true);
    expect(formatShrinkLog(log)).toContain(`${log.trials.length} candidates, 0 kept`);
  });

  it("fuzz keeps the schedule and the failing run as found, never a shrunk one that passed", async () => {
    const flaky = failsOnce();
    const r = await fuzz({
      target: flaky,
      resource: "unfenced",
      faults: ["pause"],
      seed: 3,
      runs: 500,
      shrink: { maxRuns: 10 },
    });
    const ce = r.counterexample!;
    expect(ce.shrink).toBe("not-kept");
    expect(ce.schedule).toEqual(ce.original);
    expect(isViolation(ce.verdicts)).toBe(true);
    expect(isViolation(checkOps(ce.ops))).toBe(true);
  });

  it("a real failure that repeats is shrunk and its run is one that failed", async () => {
    // A "real" target that is just the simulator: it always repeats.
    const steady: Target = { ...lease, name: "steady:lease", deterministic: false };
    const r = await shrinkOnRealServers(steady, failing, { kind: "stale-write", runs: 2, marginMs: 50 });
    expect(r.failingRun).not.toBeNull();
    expect(isViolation(r.failingRun!.verdicts)).toBe(true);
    expect(r.shrunkIn).toBe("sim");
    expect(r.schedule.clients.length).toBeLessThan(failing.clients.length);
    expect(r.confirmed).toEqual({ failed: 2, runs: 2 });
  });
});

describe("lockcheck shrink on a schedule that does not fail", () => {
  const root = resolve(import.meta.dirname, "../..");
  const cwd = mkdtempSync(join(tmpdir(), "lockcheck-shrink-"));
  afterAll(() => rmSync(cwd, { recursive: true, force: true }));
  const tsx = import.meta.resolve("tsx");
  const lockcheck = (...args: string[]) =>
    spawnSync(process.execPath, ["--import", tsx, join(root, "src/cli/main.ts"), ...args], {
      cwd,
      encoding: "utf8",
      env: { ...process.env, NO_COLOR: "1" },
      timeout: 120_000,
    });

  it("says so, exits 0 and saves nothing", () => {
    writeFileSync(join(cwd, "passing.json"), JSON.stringify({ ...failing, faults: [] }));
    const r = lockcheck("shrink", "passing.json", "--out", "out");
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain("does not fail on sim:lease; nothing to shrink, nothing saved");
    expect(existsSync(join(cwd, "out"))).toBe(false);
  });

  it("--help documents the exit status of a failure that could not be kept", () => {
    const r = lockcheck("shrink", "--help");
    expect(r.stdout).toMatch(/3 the failure could not be kept/);
  });
});
