/**
 * `lockcheck replay --runs n` on real servers: a counterexample is run n times and the runs in
 * which its violation came back are counted (exit 1 if any did); one that a fenced resource
 * stops is counted as passing every time (exit 0); Ctrl-C between runs says how far it got.
 * The simulator refuses `--runs` (its replays are identical).
 */
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { nodeCommand } from "../../src/real/hygiene/processes.js";
import { missingBinaries } from "./helpers.js";
import { pauseAfterAcquire } from "./schedules.js";

const missing = missingBinaries(["redis-server"]);
const root = join(import.meta.dirname, "../..");
let work = "";
beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), "lockcheck-test-replay-runs-"));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

const cli = () => nodeCommand(pathToFileURL(join(root, "src/cli/main.ts")));

function lockcheck(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const { command, args: nodeArgs } = cli();
  const r = spawnSync(command, [...nodeArgs, ...args], { cwd: work, encoding: "utf8", timeout: 120_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Saves `pauseAfterAcquire` (client 0 paused at "acquired" for 3 leases) for `target`. */
function saved(name: string, target: string, resource: "unfenced" | "fenced"): string {
  const path = join(work, `${name}.json`);
  writeFileSync(path, JSON.stringify(pauseAfterAcquire(target, resource, 1, 500)));
  return path;
}

describe("replay --runs: bad input", () => {
  it("the simulator refuses it, and so does --twice with it", () => {
    const sim = saved("sim", "sim:lease", "unfenced");
    const r = lockcheck(["replay", sim, "--runs", "3"]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/--runs: only for real targets: sim:lease runs in the simulator/);
    const both = lockcheck(["replay", sim, "--target", "redis:lease", "--runs", "2", "--twice"]);
    expect(both.status).toBe(2);
    expect(both.stderr).toMatch(/--runs: not with --twice/);
  });
});

describe.skipIf(missing.length > 0)("replay --runs on real servers", () => {
  it("counts the runs whose violation came back: a paused holder's stale write, every time", () => {
    const r = lockcheck(["replay", saved("lease", "redis:lease", "unfenced"), "--runs", "3"]);
    expect(r.status).toBe(1);
    expect(r.stderr.match(/^run \d of 3: stale-write$/gm)).toHaveLength(3);
    expect(r.stdout).toMatch(/\(the first run that failed\)/);
    expect(r.stdout).toMatch(/^violation in 3 of 3 runs \(stale-write\)$/m);
  });

  it("fenced, no run fails: exit 0, and --json lists every run", () => {
    const r = lockcheck(["replay", saved("token", "redis:lease-token", "fenced"), "--runs", "2", "--json"]);
    expect(r.status).toBe(0);
    const out = JSON.parse(r.stdout) as { runs: { valid: boolean; violation: string | null }[] };
    expect(out.runs).toEqual([
      { valid: true, violation: null },
      { valid: true, violation: null },
    ]);
  });

  it("Ctrl-C after the first run says how many ran and how they went, and exits 130", async () => {
    const { command, args } = cli();
    const child = spawn(
      command,
      [...args, "replay", saved("long", "redis:lease", "unfenced"), "--runs", "20"],
      {
        cwd: work,
      },
    );
    let stderr = "";
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    await new Promise<void>((resolve) => {
      child.stderr.on("data", (d: Buffer) => {
        stderr += d.toString();
        if (/run 1 of 20/.test(stderr)) resolve();
      });
    });
    child.kill("SIGINT");
    expect(await exited).toBe(130);
    expect(stderr).toMatch(
      /interrupted after [12] of 20 runs: violation in [12] of [12] runs \(stale-write\)/,
    );
  });
});
