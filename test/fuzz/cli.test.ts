/**
 * `lockcheck fuzz`, `replay` and `shrink` end to end: the CLI is spawned from the TS sources
 * (node --import tsx src/cli/main.ts) in a temporary working directory.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { testTempDir } from "../temp-dir.js";

const root = resolve(import.meta.dirname, "../..");
const main = join(root, "src/cli/main.ts");
const cwd = testTempDir("lockcheck-cli-");
// Resolved here: the CLI runs in a temporary directory where a bare "tsx" would not resolve.
const tsx = import.meta.resolve("tsx");

function lockcheck(...args: string[]) {
  const r = spawnSync(process.execPath, ["--import", tsx, main, ...args], {
    cwd,
    encoding: "utf8",
    env: { ...process.env, NO_COLOR: "1" },
    timeout: 120_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe("lockcheck fuzz / replay / shrink", () => {
  let replayPath = "";

  it("fuzz finds, shrinks, saves and explains a violation (exit 1)", () => {
    const r = lockcheck(
      "fuzz",
      "--target",
      "sim:lease",
      "--resource",
      "unfenced",
      "--faults",
      "pause",
      "--seed",
      "7",
      "--runs",
      "500",
    );
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toContain("violation found in run");
    expect(r.stdout).toMatch(/◀ stale-write/);
    const m = /replay: lockcheck replay (\S+)/.exec(r.stdout);
    expect(m).not.toBeNull();
    replayPath = m![1]!;
    const dir = join(cwd, replayPath, "..");
    for (const f of ["schedule.json", "history.jsonl", "verdict.json", "report.html"]) {
      expect(existsSync(join(dir, f)), f).toBe(true);
    }
    const verdict = JSON.parse(readFileSync(join(dir, "verdict.json"), "utf8"));
    expect(verdict.valid).toBe(false);
    expect(replayPath).toMatch(/^lockcheck-out\/sim-lease-7-\d+\/schedule.json$/);
  });

  it("replay reproduces the violation, twice with identical histories (exit 1)", () => {
    const r = lockcheck("replay", replayPath, "--twice");
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toMatch(/stale-write\s+INVALID/);
    expect(r.stdout).toContain("ran twice: identical histories");
  });

  it("shrink keeps a saved counterexample failing (exit 1)", () => {
    const r = lockcheck("shrink", join(replayPath, ".."), "--out", "shrunk");
    expect(r.code, r.stderr).toBe(1);
    // fuzz already shrank it: nothing smaller fails, and shrink says so instead of "shrunk 2 → 2".
    expect(r.stdout).toMatch(
      /^no smaller schedule failed: kept \d+ clients? \/ \d+ cycles? \/ \d+ faults? → /m,
    );
    expect(existsSync(join(cwd, "shrunk", "schedule.json"))).toBe(true);
    expect(lockcheck("replay", "shrunk").code).toBe(1);
  });

  it("fuzz --no-shrink saves beside the shrunk counterexample of the same seed, not over it", () => {
    const shrunkDir = join(cwd, replayPath, "..");
    const before = readFileSync(join(shrunkDir, "schedule.json"), "utf8");
    const r = lockcheck(
      "fuzz",
      ...["--target", "sim:lease", "--resource", "unfenced", "--faults", "pause"],
      ...["--seed", "7", "--runs", "500", "--no-shrink"],
    );
    expect(r.code, r.stderr).toBe(1);
    const m = /replay: lockcheck replay (\S+)/.exec(r.stdout);
    expect(m?.[1]).toBe(`${replayPath.replace(/\/schedule\.json$/, "")}-unshrunk/schedule.json`);
    expect(readFileSync(join(shrunkDir, "schedule.json"), "utf8")).toBe(before);
    expect(readFileSync(join(cwd, m![1]!), "utf8")).not.toBe(before);
  });

  it("shrink takes an unshrunk counterexample down to a small one of the same kind", () => {
    const found = lockcheck(
      "fuzz",
      ...["--target", "sim:lease", "--resource", "unfenced", "--faults", "pause"],
      ...["--seed", "17", "--runs", "500", "--no-shrink", "--out", "unshrunk", "--quiet"],
    );
    expect(found.code, found.stderr).toBe(1);
    const size = (dir: string) => {
      const s = JSON.parse(readFileSync(join(cwd, dir, "schedule.json"), "utf8"));
      const cycles = s.clients.reduce((n: number, c: { cycles: unknown[] }) => n + c.cycles.length, 0);
      return { clients: s.clients.length, cycles, faults: s.faults.length };
    };
    const before = size("unshrunk");
    const r = lockcheck("shrink", "unshrunk", "--out", "unshrunk-min", "--quiet");
    expect(r.code, r.stderr).toBe(1);
    const after = size("unshrunk-min");
    expect(before.faults).toBeGreaterThan(1);
    expect(after.clients).toBe(2);
    expect(after.faults).toBe(1);
    // Seed 17 is one where shrinking without the failing run's evidence stops at 3 cycles, 2 faults.
    expect(after.cycles).toBe(2);
    const verdict = JSON.parse(readFileSync(join(cwd, "unshrunk-min", "verdict.json"), "utf8"));
    expect(JSON.stringify(verdict)).toContain('"kind":"stale-write"');
  });

  it("fuzz without a violation exits 0 with a summary; --json is machine-readable", () => {
    const r = lockcheck(
      "fuzz",
      "--target",
      "sim:lease-token",
      "--resource",
      "fenced",
      "--faults",
      "pause",
      "--seed",
      "3",
      "--runs",
      "150",
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/no violation in 150 runs of sim:lease-token \(fenced\), seed 3/);
    const j = lockcheck(
      "fuzz",
      "--target",
      "sim:lease-token",
      "--faults",
      "none",
      "--seed",
      "3",
      "--runs",
      "20",
      "--json",
    );
    expect(j.code).toBe(0);
    expect(JSON.parse(j.stdout)).toMatchObject({
      target: "sim:lease-token",
      resource: "fenced",
      runs: 20,
      violation: false,
    });
  });

  it("bad input exits 2 with a message that says what is valid", () => {
    const unknown = lockcheck("fuzz", "--target", "sim:nope");
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('--target: unknown target "sim:nope"; valid targets: sim:lease,');
    const faults = lockcheck("fuzz", "--target", "sim:lease", "--faults", "pause,gc");
    expect(faults.code).toBe(2);
    expect(faults.stderr).toContain('--faults: unknown fault category "gc"');
    const resource = lockcheck("fuzz", "--target", "sim:lease", "--resource", "fenced-txn");
    expect(resource.code).toBe(2);
    expect(resource.stderr).toContain("sim:lease supports unfenced, fenced, not fenced-txn");
    const partitions = lockcheck("fuzz", "--target", "sim:lease", "--partition-mode", "blackhole");
    expect(partitions.code).toBe(2);
    expect(partitions.stderr).toContain("--partition-mode: only for real targets");
    const shrinkLimit = lockcheck("fuzz", "--target", "sim:lease", "--shrink-time-limit", "5m");
    expect(shrinkLimit.code).toBe(2);
    expect(shrinkLimit.stderr).toContain("--shrink-time-limit: only for real targets");
    const badLimit = lockcheck("fuzz", "--target", "redis:lease", "--shrink-time-limit", "soon");
    expect(badLimit.code).toBe(2);
    expect(badLimit.stderr).toContain(
      '--shrink-time-limit: expected a positive duration such as 500ms, 20s or 2m, got "soon"',
    );
    writeFileSync(join(cwd, "bad.json"), '{"version": 2}');
    const bad = lockcheck("replay", "bad.json");
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/bad\.json: version: /);
  });

  it("a subcommand's usage errors are bad input too (exit 2), with the pointer to --help", () => {
    const seed = lockcheck("run", "--seed", "abc");
    expect(seed.code).toBe(2);
    expect(seed.stderr).toContain("option '--seed <n>' argument 'abc' is invalid");
    expect(seed.stderr).toContain("(run with --help for usage)");
    const runs = lockcheck("fuzz", "--runs", "x");
    expect(runs.code).toBe(2);
    expect(runs.stderr).toContain("--runs must be a positive integer");
    expect(lockcheck("fuzz", "--bogus").code).toBe(2);
    expect(lockcheck("shrink").stderr).toContain("missing required argument 'schedule'");
    expect(lockcheck("shrink").code).toBe(2);
    expect(lockcheck("run", "--help").code).toBe(0);
  });
});
