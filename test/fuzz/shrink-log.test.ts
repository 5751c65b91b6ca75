/**
 * The shrink log of a shrink on real servers (report/shrink-log.ts): one line per candidate,
 * every real run accounted for, kept exactly where the pass kept a candidate, and each line
 * saying how its candidate differs from the schedule before it. The "real servers" are the
 * simulator (fake-real-shrink.ts).
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { checkOps } from "../../src/checkers/index.js";
import { flakyAdvice, flakyTrials, formatShrinkLog, type ShrinkLog } from "../../src/report/shrink-log.js";
import { saveRun } from "../../src/runner/run-folder.js";
import { probeViolation } from "../../src/runner/same-violation.js";
import { cutAfterViolation } from "../../src/runner/shrink/cut-after-violation.js";
import { describeChange, trialSize } from "../../src/runner/shrink/describe-change.js";
import type { Schedule } from "../../src/schedule/schedule.js";
import { found, lease, shrinkFoundOn, shrinkOnSimServers } from "./fake-real-shrink.js";

const runOnSim = async (s: Schedule) => (await lease.run(s)).ops;

describe("the shrink log", () => {
  it("has every real run of the shrink, and marks kept the candidates the pass went on from", async () => {
    const r = await shrinkFoundOn(runOnSim, { maxRuns: 30 });
    const { trials } = r.log;
    expect(trials.length).toBeGreaterThan(0);
    expect(trials.reduce((n, t) => n + t.runs.length, 0)).toBe(r.realRuns);
    expect(trials.filter((t) => t.step === "pass" && t.kept)).toHaveLength(r.steps);
    for (const t of trials) {
      expect(t.change).not.toBe("");
      // Kept needs both runs failed (2 of 2; the replays make 3); the simulator answers the
      // same each time.
      if (t.kept)
        expect(t.runs).toEqual(t.step === "replays" ? ["failed", "failed", "failed"] : ["failed", "failed"]);
      if (t.step === "pass" && t.runs.includes("passed")) expect(t.kept).toBe(false);
    }
    // The result is the last schedule kept (no replay stepped back: the simulator never flakes).
    const last = trials.filter((t) => t.kept && t.step !== "replays").at(-1)!;
    expect(last.size).toEqual(trialSize(r.schedule));
    expect(r.log.input).toEqual(trialSize(found));
    // A cut of the run after its violation is a candidate only when it takes a tenth of it.
    for (const t of trials) {
      const m = /^horizon ([\d.]+) s → ([\d.]+) s$/.exec(t.change);
      if (m !== null) expect(Number(m[2]), t.change).toBeLessThanOrEqual(0.9 * Number(m[1]) + 0.05);
    }
    // The pass's first kept candidate dropped clients (the idlers) or cut the run short.
    const firstKept = trials.find((t) => t.step === "pass" && t.kept)!;
    expect(firstKept.change).toMatch(/clients|horizon|cycles/);
  }, 60_000);

  it("lists the pass's candidates in the order it took them, however their runs end", async () => {
    const taken: string[] = [];
    const r = await shrinkOnSimServers(lease, found, {
      runs: 2,
      parallel: 2,
      budget: { maxRuns: 16 },
      runOnServers: async (s) => {
        const key = JSON.stringify(s);
        if (!taken.includes(key)) taken.push(key);
        // The first of each batch takes longer: its runs end after the second's.
        if (taken.indexOf(key) % 2 === 0) await new Promise((done) => setTimeout(done, 15));
        return runOnSim(s);
      },
    });
    const pass = r.log.trials.filter((t) => t.step === "pass");
    const sizes = taken.map((k) => trialSize(JSON.parse(k) as Schedule));
    expect(pass.map((t) => t.size)).toEqual(sizes.slice(0, pass.length));
    expect(pass.length).toBeGreaterThan(2);
  }, 60_000);

  it("tries the run cut short after its violation only when that takes a tenth of it", async () => {
    const evidence = (await probeViolation(lease, found, "stale-write")).evidence!;
    const cutMs = cutAfterViolation(found, evidence)!.options.horizonMs;
    const firstChange = async (horizonMs: number) => {
      const s = { ...found, options: { ...found.options, horizonMs } };
      const r = await shrinkOnSimServers(lease, s, {
        runs: 1,
        parallel: 1,
        budget: { maxRuns: 1 },
        runOnServers: runOnSim,
      });
      return r.log.trials[0]!.change;
    };
    expect(await firstChange(cutMs + 100)).not.toMatch(/horizon/);
    expect(await firstChange(2 * cutMs)).toMatch(/^horizon /);
  }, 60_000);

  it("counts a flaky candidate's passing run, and does not keep it", async () => {
    let n = 0;
    // Every other run of the shrink passes: a candidate whose first run passes is not kept.
    const flaky = async (s: Schedule) => (n++ % 2 === 1 ? [] : runOnSim(s));
    const r = await shrinkFoundOn(flaky, { maxRuns: 12 });
    const { trials } = r.log;
    expect(trials.reduce((k, t) => k + t.runs.length, 0)).toBe(r.realRuns);
    expect(trials.some((t) => t.runs.includes("passed"))).toBe(true);
    for (const t of trials) if (t.runs.includes("passed") && t.step === "pass") expect(t.kept).toBe(false);
  }, 60_000);
});

describe("describeChange", () => {
  const base = found;
  it("names dropped clients, cycles and faults", () => {
    const fewer = { ...base, clients: base.clients.slice(0, 2) };
    expect(describeChange(base, fewer)).toBe("4 → 2 clients; 4 → 2 cycles");
    const noFault = { ...base, faults: [] };
    expect(describeChange(base, noFault)).toBe("without pause client:0 at 150 ms");
  });
  it("names a fault changed in place, a shorter horizon, and times", () => {
    const shorter = { ...base, faults: [{ ...base.faults[0]!, durationMs: 1250 }] as Schedule["faults"] };
    expect(describeChange(base, shorter)).toBe("changed pause client:0 at 150 ms");
    const cut = { ...base, options: { ...base.options, horizonMs: 3000 } };
    expect(describeChange(base, cut)).toMatch(/^horizon .* → 3\.0 s$/);
    const quicker = {
      ...base,
      clients: base.clients.map((c) => ({ ...c, cycles: c.cycles.map((cy) => ({ ...cy, thinkMs: 0 })) })),
    };
    expect(describeChange(base, quicker)).toBe("think and hold times 10720 → 720 ms in all");
    expect(describeChange(base, base)).toBe("the same schedule");
  });
  it("names two faults, then how many more", () => {
    const pause = (at: number) => ({
      kind: "pause" as const,
      node: "client:1" as const,
      at,
      durationMs: 100,
    });
    const many = { ...base, faults: [pause(1), pause(2), pause(3), pause(4)] };
    expect(describeChange(many, { ...base, faults: [] })).toBe(
      "without pause client:1 at 1 ms; pause client:1 at 2 ms and 2 more",
    );
  });
  it("counts faults dropped and changed together, one fault in the singular", () => {
    const pause = (at: number, durationMs = 100) => ({
      kind: "pause" as const,
      node: "client:1" as const,
      at,
      durationMs,
    });
    const three = { ...base, faults: [pause(1), pause(2), pause(3)] };
    expect(describeChange(three, { ...base, faults: [pause(1, 50)] })).toBe("3 → 1 faults; 1 fault changed");
    expect(describeChange(three, { ...base, faults: [pause(1, 50), pause(2, 50)] })).toBe(
      "3 → 2 faults; 2 faults changed",
    );
  });
  it("says when clients stop repeating", () => {
    const repeating = { ...base, clients: base.clients.map((c) => ({ ...c, repeat: true as const })) };
    expect(describeChange(repeating, base)).toBe("4 fewer repeating");
  });
});

describe("formatShrinkLog and the run folder", () => {
  const log: ShrinkLog = {
    target: "redis:lease",
    runs: 2,
    needed: 2,
    parallel: 2,
    input: { clients: 3, cycles: 6, repeating: 3, faults: 4 },
    twin: null,
    trials: [
      {
        step: "pass",
        change: "3 → 2 clients",
        size: { clients: 2, cycles: 4, repeating: 2, faults: 3 },
        runs: ["failed", "failed"],
        kept: true,
        ms: 12_300,
      },
      {
        step: "pass",
        change: "without pause client:1 at 20 ms",
        size: { clients: 2, cycles: 4, repeating: 2, faults: 2 },
        runs: ["passed"],
        kept: false,
        ms: 6_000,
      },
      {
        step: "pass",
        change: "4 → 2 cycles",
        size: { clients: 2, cycles: 2, repeating: 2, faults: 3 },
        runs: ["stopped"],
        kept: false,
        ms: 2_000,
      },
    ],
  };

  it("writes one line per candidate with its runs, whether kept, and its change", () => {
    const lines = formatShrinkLog(log).trimEnd().split("\n");
    expect(lines[0]).toBe("shrinking redis:lease on real servers: 3 candidates, 1 kept");
    const rows = lines.slice(-3);
    expect(rows[0]).toMatch(
      /^ {3}1 {2}pass +FF +kept +12\.3 {2}2 clients \(2 repeating\), 4 cycles, 3 faults {2}3 → 2 clients$/,
    );
    expect(rows[1]).toMatch(/^ {3}2 {2}pass +\. +6\.0 .* {2}without pause client:1 at 20 ms$/);
    expect(rows[2]).toMatch(/^ {3}3 {2}pass +- +2\.0 /);
  });

  it("names the candidates that both failed and passed, and how to keep a flaky failure", () => {
    expect(flakyTrials(log)).toEqual([]);
    expect(flakyAdvice(log, "out/x")).toBeNull();
    const flaky: ShrinkLog = {
      ...log,
      trials: [...log.trials, { ...log.trials[1]!, runs: ["failed", "passed"] }],
    };
    expect(flakyTrials(flaky)).toEqual([4]);
    expect(flakyAdvice(flaky, "out/x")).toMatch(
      /^the failure comes and goes: 1 of 4 candidates .*, 1 of them smaller than the result \(#4 in shrink-log.txt\).* lockcheck shrink out\/x --runs 3 --need 2 --time-limit 5m$/,
    );
    // A flaky candidate no smaller than the result (2 clients, 4 cycles, 3 faults) could not have led further.
    const larger: ShrinkLog = {
      ...log,
      trials: [
        ...log.trials,
        {
          ...log.trials[1]!,
          size: { clients: 3, cycles: 4, repeating: 2, faults: 2 },
          runs: ["failed", "passed"],
        },
      ],
    };
    expect(flakyTrials(larger)).toEqual([4]);
    expect(flakyAdvice(larger, "out/x")).toBeNull();
    // Already keeping candidates that fail only some runs: nothing to advise.
    expect(flakyAdvice({ ...flaky, runs: 3, needed: 2 }, "out/x")).toBeNull();
  });

  it("is saved as shrink-log.txt beside the run", async () => {
    const dir = await mkdtemp(join(tmpdir(), "lockcheck-shrink-log-"));
    try {
      const ops = await runOnSim(found);
      const saved = await saveRun(dir, { schedule: found, ops, verdicts: checkOps(ops), shrinkLog: log });
      expect(saved.ok).toBe(true);
      expect(await readFile(join(dir, "shrink-log.txt"), "utf8")).toBe(formatShrinkLog(log));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
