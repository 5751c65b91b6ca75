/**
 * `lockcheck run` end to end (spawned as `node --import tsx src/cli/main.ts run …`): a
 * schedule saved for the simulator runs against real servers with its world prefix
 * replaced, writes the run folder and exits 1 on a violation; a generated schedule is saved
 * with its seed; bad input exits 2 with a message that says what to do.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { readHistoryFile } from "../../src/history/read.js";
import { nodeCommand } from "../../src/real/hygiene/processes.js";
import { testTempDir } from "../temp-dir.js";
import { missingBinaries } from "./helpers.js";
import { pauseAfterAcquire } from "./schedules.js";

const missing = missingBinaries(["redis-server"]);
const root = join(import.meta.dirname, "../..");
const work = testTempDir("lockcheck-test-cli-run-");

function lockcheck(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const { command, args: nodeArgs } = nodeCommand(pathToFileURL(join(root, "src/cli/main.ts")));
  const r = spawnSync(command, [...nodeArgs, ...args], {
    cwd: work,
    encoding: "utf8",
    timeout: 120_000,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** A schedule that fails every time: client 0 is paused at "acquired" for 3× its 500 ms lease. */
const pausedPastLease = (target: string) => pauseAfterAcquire(target, "unfenced", 1, 500);

describe("lockcheck run: bad input", () => {
  it("an unknown target exits 2 and lists the real targets", () => {
    const r = lockcheck(["run", "--target", "redis:nope"]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/redis:lease.*etcd:lock/);
  });

  it("a missing server binary exits 2 and says how to install it", () => {
    const out = join(work, "missing");
    const r = lockcheck([
      "run",
      "--target",
      "redis:lease",
      "--redis-server",
      "/nonexistent/redis-server",
      "--out",
      out,
      "--quiet",
    ]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/apt-get install redis-server/);
  });
});

describe.skipIf(missing.length > 0)("lockcheck run against real servers", () => {
  it("runs a simulator schedule (sim:lease → redis:lease), saves the run folder, exits 1 on the violation", () => {
    const simSchedule = pausedPastLease("sim:lease");
    const file = join(work, "sim-schedule.json");
    writeFileSync(file, JSON.stringify(simSchedule));
    const out = join(work, "from-sim");
    const r = lockcheck(["run", "--schedule", file, "--out", out, "--quiet"]);
    expect(r.stderr).toBe("");
    expect(r.status).toBe(1);
    expect(r.stdout).toMatch(/redis:lease \(unfenced\)/);
    expect(r.stdout).toMatch(/stale-write\s+INVALID/);
    expect(r.stdout).toContain(
      `shrink it to the smallest schedule that still fails here: lockcheck shrink ${out}\n`,
    );
    const saved = JSON.parse(readFileSync(join(out, "schedule.json"), "utf8")) as { target: string };
    expect(saved.target).toBe("redis:lease");
    const verdict = JSON.parse(readFileSync(join(out, "verdict.json"), "utf8")) as { valid: unknown };
    expect(verdict.valid).toBe(false);
    expect(existsSync(join(out, "report.html"))).toBe(true);
    return readHistoryFile(join(out, "history.jsonl")).then((h) => expect(h.ok).toBe(true));
  });

  it("running a saved run again without --out saves beside it, not over it", () => {
    const first = lockcheck([
      "run",
      "--target",
      "redis:lease",
      "--seed",
      "5",
      "--duration",
      "1s",
      "--faults",
      "pause",
      "--clients",
      "2",
      "--quiet",
    ]);
    const dir = join("lockcheck-out", "redis-lease-5-real");
    expect(first.stdout).toContain(`saved ${dir} `);
    const history = readFileSync(join(work, dir, "history.jsonl"), "utf8");
    const again = lockcheck(["run", "--schedule", dir, "--quiet"]);
    expect(again.stderr).toBe("");
    expect(again.stdout).toContain(`saved ${dir}-2 `);
    expect(again.stdout).toContain(`run it again: lockcheck run --schedule ${dir}-2`);
    expect(readFileSync(join(work, dir, "history.jsonl"), "utf8")).toBe(history);
    expect(existsSync(join(work, `${dir}-2`, "history.jsonl"))).toBe(true);
  });

  it("generates a schedule from --seed, runs it, prints JSON and saves the schedule with that seed", () => {
    const out = join(work, "generated");
    const r = lockcheck([
      "run",
      "--target",
      "redis:lease-token",
      "--seed",
      "3",
      "--duration",
      "2s",
      "--faults",
      "pause",
      "--clients",
      "2",
      "--out",
      out,
      "--json",
    ]);
    const summary = JSON.parse(r.stdout) as {
      valid: unknown;
      verdicts: { checker: string; valid: unknown }[];
    };
    const stale = summary.verdicts.find((v) => v.checker === "stale-write");
    expect(stale?.valid).not.toBe(false); // fenced by tokens
    expect(r.status).toBe(summary.valid === true ? 0 : summary.valid === false ? 1 : 2);
    const saved = JSON.parse(readFileSync(join(out, "schedule.json"), "utf8")) as {
      seed: number;
      target: string;
      resource: string;
      clients: unknown[];
    };
    expect(saved).toMatchObject({ seed: 3, target: "redis:lease-token", resource: "fenced" });
    expect(saved.clients.length).toBeLessThanOrEqual(2);
  });
});

describe.skipIf(missing.length > 0)("lockcheck run --attempts", () => {
  const failing = () => pausedPastLease("redis:lease");

  it("stops at the first run that fails, and says which", () => {
    const file = join(work, "attempts-failing.json");
    writeFileSync(file, JSON.stringify(failing()));
    const out = join(work, "attempts-failing");
    const r = lockcheck(["run", "--schedule", file, "--out", out, "--attempts", "3", "--quiet"]);
    expect(r.status).toBe(1);
    expect(r.stdout).toMatch(/stale-write\s+INVALID/);
    expect(r.stdout).toContain("failed on attempt 1 of 3");
    expect(existsSync(join(out, "history.jsonl"))).toBe(true);
    expect(existsSync(`${out}-attempt-2`)).toBe(false);
  });

  it("runs a schedule that passes n times, each in its own run folder, and reports them in --json", () => {
    const calm = { ...failing(), faults: [] };
    const file = join(work, "attempts-calm.json");
    writeFileSync(file, JSON.stringify(calm));
    const out = join(work, "attempts-calm");
    const r = lockcheck(["run", "--schedule", file, "--out", out, "--attempts", "2", "--json"]);
    expect(r.status).toBe(0);
    const summary = JSON.parse(r.stdout) as { valid: unknown; out: string; attempts: unknown };
    expect(summary.valid).toBe(true);
    expect(summary.attempts).toEqual({ made: 2, limit: 2, failedAt: null });
    expect(summary.out).toBe(`${out}-attempt-2`);
    expect(existsSync(join(out, "history.jsonl"))).toBe(true);
    expect(existsSync(join(`${out}-attempt-2`, "history.jsonl"))).toBe(true);
    // Progress goes to stderr; with --json there is none.
    const text = lockcheck([
      "run",
      "--schedule",
      file,
      "--out",
      join(work, "attempts-calm-text"),
      "--attempts",
      "2",
    ]);
    expect(text.stderr).toContain("attempt 1 of 2: valid");
    expect(text.stdout).toContain("passed all 2 attempts");
  });

  it("--attempts 0 is bad input", () => {
    const r = lockcheck(["run", "--target", "redis:lease", "--attempts", "0"]);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("--attempts must be a positive integer");
  });
});

describe.skipIf(missing.length > 0)("lockcheck fuzz against real servers", () => {
  it("a second campaign with the same seed saves its counterexample beside the first, not over it", () => {
    const args = ["fuzz", "--target", "redis:lease", "--resource", "unfenced", "--faults", "pause"];
    const campaign = () =>
      lockcheck([...args, "--seed", "11", "--runs", "6", "--duration", "5s", "--no-shrink", "--json"]);
    const savedDir = (stdout: string): string => {
      const parsed = JSON.parse(stdout) as { dir?: unknown };
      if (typeof parsed.dir !== "string") throw new Error(`no saved folder in ${stdout.slice(0, 300)}`);
      return parsed.dir;
    };
    const first = campaign();
    expect(first.status).toBe(1);
    const firstDir = savedDir(first.stdout);
    const history = readFileSync(join(work, firstDir, "history.jsonl"), "utf8");
    const second = campaign();
    expect(second.status).toBe(1);
    const secondDir = savedDir(second.stdout);
    expect(secondDir).not.toBe(firstDir);
    expect(readFileSync(join(work, firstDir, "history.jsonl"), "utf8")).toBe(history);
    expect(existsSync(join(work, secondDir, "history.jsonl"))).toBe(true);
  }, 120_000);
});
