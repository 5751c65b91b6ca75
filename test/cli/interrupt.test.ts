/**
 * Ctrl-C (SIGINT) and SIGTERM in the middle of `lockcheck fuzz`: the command says how far the
 * search got before it exits 130 / 143, instead of dying silently. Spawns the built CLI, as
 * users run it (`npm test` builds first), and of `lockcheck gate --junit`, whose JUnit keeps the
 * items that finished. The interrupt of a real fuzz while it shrinks, with the run as found kept
 * on disk, is tested with real servers in test/real/interrupt.test.ts.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { FuzzPlan } from "../../src/api/fuzz.js";
import { interruptedJson, interruptedLines } from "../../src/cli/commands/fuzz.js";
import { interruptedGateLines } from "../../src/cli/commands/gate.js";
import { interruptedShrinkLines } from "../../src/cli/commands/shrink.js";
import type { TargetResult } from "../../src/report/gate-result.js";
import { sizeOf } from "./schedule-sizes.js";

const ROOT = join(import.meta.dirname, "../..");
const CLI = join(ROOT, "dist/src/cli/main.js");
beforeAll(() => {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build\` first (npm test does)`);
});

/** CPU seconds a process has used (user + system), from /proc. */
function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/**
 * Starts a search that would run for hours, waits until it has spent `cpu` seconds (well past
 * start-up: the handler is in place before the search begins), then sends `signal`.
 */
async function interruptSearch(signal: "SIGINT" | "SIGTERM", cpu = 2, extra: readonly string[] = []) {
  const child = spawn(
    process.execPath,
    [CLI, "fuzz", "--target", "sim:lease-token", "--resource", "fenced", "--faults", "pause,delay"].concat([
      "--runs",
      "100000000",
      "--seed",
      "3",
      "--workers",
      "1",
      ...extra,
    ]),
    { cwd: ROOT, env: { ...process.env, NO_COLOR: "1" }, stdio: ["ignore", "pipe", "pipe"] },
  );
  let stderr = "";
  let stdout = "";
  child.stderr.on("data", (d) => {
    stderr += String(d);
  });
  child.stdout.on("data", (d) => {
    stdout += String(d);
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on("exit", (code, sig) => resolve({ code, signal: sig })),
  );
  const deadline = Date.now() + 60_000;
  while (cpuSeconds(child.pid!) < cpu) {
    if (Date.now() > deadline) throw new Error(`the search did not get going (stderr: ${stderr})`);
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill(signal);
  const end = await exited;
  return { ...end, stderr, stdout };
}

/** `lockcheck merge` of a shard whose output is `stdout` (saved as `file`) exits 2: "<what> before it finished: run that shard again". */
function expectMergeRefuses(file: string, stdout: string, what: string): void {
  writeFileSync(file, stdout);
  const merged = spawnSync(process.execPath, [CLI, "merge", file], { encoding: "utf8" });
  expect(merged.status).toBe(2);
  expect(merged.stderr).toContain(`${what} before it finished: run that shard again`);
}

describe("interrupting lockcheck fuzz", () => {
  it("SIGINT while searching: says how many runs passed, exits 130", async () => {
    const r = await interruptSearch("SIGINT");
    expect(r.code, r.stderr).toBe(130);
    const m =
      /^interrupted: no violation in the (\d+) runs of sim:lease-token \(fenced\), seed 3 that finished$/m.exec(
        r.stderr,
      );
    expect(m, r.stderr).not.toBeNull();
    expect(Number(m![1])).toBeGreaterThan(0);
    expect(r.stdout).toBe("");
  }, 90_000);

  it("SIGTERM: the same, exit 143", async () => {
    const r = await interruptSearch("SIGTERM");
    expect(r.code, r.stderr).toBe(143);
    expect(r.stderr).toMatch(/^interrupted: no violation in the \d+ runs of /m);
  }, 90_000);

  it("with --json: one JSON line on stdout says it was interrupted; merge refuses that shard", async () => {
    const r = await interruptSearch("SIGTERM", 2, ["--shard", "1/2", "--json"]);
    expect(r.code, r.stderr).toBe(143);
    const lines = r.stdout.trim().split("\n");
    expect(lines).toHaveLength(1);
    const summary = JSON.parse(lines[0]!) as { runs: number };
    expect(summary).toMatchObject({
      target: "sim:lease-token",
      resource: "fenced",
      seed: 3,
      interrupted: true,
      signal: "SIGTERM",
      violation: false,
    });
    expect(summary.runs).toBeGreaterThan(0);
    const dir = mkdtempSync(join(tmpdir(), "lockcheck-interrupted-shard-"));
    try {
      expectMergeRefuses(join(dir, "shard-1.json"), r.stdout, "a search stopped by SIGTERM");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 90_000);
});

describe("what an interrupted fuzz says", () => {
  const plan: FuzzPlan = {
    target: "redis:lease",
    resource: "unfenced",
    seed: 11,
    runs: 6,
    from: 0,
    part: null,
    real: true,
  };

  it("while shrinking: where the run as found is, and how to replay it", () => {
    expect(interruptedLines(plan, 2, { foundAtRun: 2, dir: "out/redis-lease-11-2-unshrunk" })).toEqual([
      "interrupted while shrinking: the violation found in run 2 of redis:lease (unfenced), seed 11 is saved as found in out/redis-lease-11-2-unshrunk/",
      "replay: lockcheck replay out/redis-lease-11-2-unshrunk/schedule.json",
    ]);
  });

  it("while shrinking on real servers: the smallest failure so far, and the run as found", () => {
    const smallest = { dir: "out/redis-lease-11-2", size: sizeOf(2, 3, 1) };
    const found = { foundAtRun: 2, dir: "out/redis-lease-11-2-unshrunk" };
    expect(interruptedLines(plan, 2, found, smallest)).toEqual([
      "interrupted while shrinking the violation found in run 2 of redis:lease (unfenced), seed 11: the smallest schedule that failed so far (2 clients, 3 lock cycles, 1 fault) is saved in out/redis-lease-11-2/, the run as found in out/redis-lease-11-2-unshrunk/",
      "run it again: lockcheck run --schedule out/redis-lease-11-2",
    ]);
    expect(interruptedLines(plan, 2, { foundAtRun: 2, dir: null }, smallest)[0]).not.toContain("as found");
  });

  it("with --json: where the run as found and the smallest failure so far are", () => {
    const found = { foundAtRun: 2, dir: "out/redis-lease-11-2-unshrunk" };
    const smallest = { dir: "out/redis-lease-11-2", size: sizeOf(2, 3, 1) };
    expect(interruptedJson(plan, 2, found, smallest, 5000, "SIGINT")).toEqual({
      target: "redis:lease",
      resource: "unfenced",
      seed: 11,
      runs: 2,
      elapsedMs: 5000,
      interrupted: true,
      signal: "SIGINT",
      violation: true,
      foundAtRun: 2,
      asFound: "out/redis-lease-11-2-unshrunk",
      dir: "out/redis-lease-11-2",
      minimal: sizeOf(2, 3, 1),
    });
    expect(interruptedJson(null, 0, null, null, 10, "SIGTERM")).toEqual({
      runs: 0,
      elapsedMs: 10,
      interrupted: true,
      signal: "SIGTERM",
      violation: false,
    });
  });

  it("while shrinking with saving off, or before the search began", () => {
    expect(interruptedLines(plan, 2, { foundAtRun: 2, dir: null })[0]).toContain("(it was not saved)");
    expect(interruptedLines(null, 0, null)).toEqual(["interrupted before the search started"]);
  });
});

describe("interrupting lockcheck gate --junit --json", () => {
  it("SIGTERM during its second item: exits 143, the JUnit has the finished item and the interrupted one as an error, stdout one JSON line that merge refuses", async () => {
    const dir = mkdtempSync(join(tmpdir(), "lockcheck-gate-interrupt-"));
    try {
      const config = join(dir, "gate.json");
      writeFileSync(
        config,
        JSON.stringify({
          corpus: [],
          output: join(dir, "out"),
          targets: [
            {
              target: "sim:lease",
              resource: "unfenced",
              expect: "unsafe",
              runs: 500,
              seed: 7,
              faults: ["pause"],
            },
            {
              target: "sim:lease-token",
              resource: "fenced",
              expect: "safe",
              runs: 100_000_000,
              faults: ["pause"],
            },
          ],
        }),
      );
      const junit = join(dir, "gate.xml");
      const child = spawn(
        process.execPath,
        [CLI, "gate", "--config", config, "--junit", junit, "--json", "--workers", "1"],
        {
          cwd: dir,
          env: { ...process.env, NO_COLOR: "1" },
          stdio: ["ignore", "pipe", "pipe"],
        },
      );
      let stderr = "";
      let stdout = "";
      child.stderr.on("data", (d) => {
        stderr += String(d);
      });
      child.stdout.on("data", (d) => {
        stdout += String(d);
      });
      const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
      // The first item finds its violation in run 42 and shrinks it in about a second.
      const deadline = Date.now() + 60_000;
      while (cpuSeconds(child.pid!) < 6) {
        if (Date.now() > deadline) throw new Error(`the gate did not get going (stderr: ${stderr})`);
        await new Promise((r) => setTimeout(r, 100));
      }
      child.kill("SIGTERM");
      expect(await exited, stderr).toBe(143);
      expect(stderr).toContain(
        `interrupted during item 2 of 2 (sim:lease-token (fenced)): the gate did not finish and wrote no report; the JUnit in ${junit} has the finished items and this one as an error; of the 1 item finished, 0 failed`,
      );
      const xml = readFileSync(junit, "utf8");
      expect(xml).toMatch(/<testcase name="sim:lease \(unfenced\) is unsafe"[^>]*>/);
      expect(xml).toMatch(
        /<testcase name="sim:lease-token \(fenced\) is safe"[\s\S]*<error message="interrupted/,
      );
      expect(xml).not.toContain("<failure");
      const lines = stdout.trim().split("\n");
      expect(lines).toHaveLength(1);
      expect(JSON.parse(lines[0]!)).toMatchObject({
        kind: "gate",
        interrupted: true,
        signal: "SIGTERM",
        shard: null,
        running: "sim:lease-token (fenced)",
        results: [{ name: "sim:lease (unfenced)", met: true }],
      });
      expectMergeRefuses(join(dir, "shard.json"), stdout, "a gate stopped by SIGTERM");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 90_000);
});

describe("what an interrupted shrink and gate say", () => {
  it("shrink: where the smallest failure so far is, or that the input is untouched", () => {
    const size = sizeOf(2, 4, 1);
    expect(interruptedShrinkLines("in.json", 7, { dir: "out/x-shrunk", size })).toEqual([
      "interrupted after 7 runs: the smallest schedule that failed so far (2 clients / 4 cycles / 1 fault) is saved in out/x-shrunk/",
      "run it again: lockcheck run --schedule out/x-shrunk",
    ]);
    expect(
      interruptedShrinkLines("in.json", 7, { dir: "out/x-shrunk", size }, { cluster: "docker" })[1],
    ).toBe("run it again: lockcheck run --schedule out/x-shrunk --cluster docker");
    // Images given by flag are repeated: the run again is on the same servers.
    const images = { cluster: "docker" as const, docker: { images: { etcd: "mine/etcd:3.5" } } };
    expect(interruptedShrinkLines("in.json", 7, { dir: "out/x-shrunk", size }, images)[1]).toBe(
      "run it again: lockcheck run --schedule out/x-shrunk --cluster docker --etcd-image mine/etcd:3.5",
    );
    expect(interruptedShrinkLines("in.json", 3, null)).toEqual([
      "interrupted after 3 runs: no smaller schedule had failed yet; in.json is as it was",
    ]);
  });

  it("gate: the item it was on, and the finished ones that failed", () => {
    const result = (name: string, met: boolean): TargetResult => ({
      kind: "target",
      name,
      target: "sim:lease",
      resource: "fenced",
      expect: "safe",
      seed: 1,
      faults: ["pause"],
      runs: 100,
      violations: met ? 0 : 1,
      interrupted: false,
      elapsedMs: 10,
      met,
      ...(met
        ? {}
        : {
            counterexample: { dir: "out/a", replay: "lockcheck replay out/a/schedule.json", foundAtRun: 9 },
          }),
    });
    expect(
      interruptedGateLines({ name: "c", position: 3, of: 4 }, [result("a", false), result("b", true)]),
    ).toEqual([
      "interrupted during item 3 of 4 (c): the gate did not finish and wrote no report (nor JUnit); of the 2 items finished, 1 failed",
      "  FAIL a: expected safe, but a violation was found in run 9 of seed 1",
    ]);
    expect(interruptedGateLines({ name: "a", position: 1, of: 4 }, [])[0]).toContain("no item had finished");
    expect(interruptedGateLines(null, [], { file: "out/g.xml", error: "EACCES" })[0]).toBe(
      "interrupted between items: the gate did not finish and wrote no report, and could not write the JUnit (out/g.xml: EACCES); no item had finished",
    );
  });
});
