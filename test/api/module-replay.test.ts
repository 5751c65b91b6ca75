/**
 * A counterexample of a module target (here the LockAlgorithm of docs/examples/my-lock.mjs,
 * fuzzed in the simulator) is saved with the module's path in its schedule, so the replay
 * command printed for it works as printed from any working folder; and with the module's path
 * from the run folder, so a folder committed with the project works in another checkout.
 */
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { pathToFileURL } from "node:url";
import { expect, it } from "vitest";
import { gate } from "../../src/api/gate.js";
import { loadScheduleArg } from "../../src/api/schedule-arg.js";
import { fuzz } from "../../src/index.js";
import { nodeCommand } from "../../src/real/hygiene/processes.js";
import type { Schedule } from "../../src/schedule/schedule.js";
import { testTempDir } from "../temp-dir.js";

const root = join(import.meta.dirname, "../..");
const work = testTempDir("lockcheck-test-module-replay-");

it("the printed replay command of a module's counterexample works from another folder", async () => {
  const dir = join(work, "found");
  const report = await fuzz({
    target: "module:./docs/examples/my-lock.mjs",
    faults: ["pause"],
    runs: 300,
    seed: 1,
    save: dir,
  });
  expect(report.violation).toBe(true);
  expect(report.counterexample?.replay).toBe(`lockcheck replay ${dir}/schedule.json`);
  const saved = JSON.parse(readFileSync(join(dir, "schedule.json"), "utf8")) as Schedule;
  const lock = join(root, "docs/examples/my-lock.mjs");
  expect(saved.module).toEqual({ path: lock, relativePath: relative(dir, lock) });

  const { command, args } = nodeCommand(pathToFileURL(join(root, "src/cli/main.ts")));
  const replay = report.counterexample!.replay.split(" ").slice(1);
  const r = spawnSync(command, [...args, ...replay], { cwd: work, encoding: "utf8", timeout: 120_000 });
  expect(r.status, r.stderr).toBe(1);
  expect(r.stdout).toMatch(/^sim:my-lease \(unfenced\)/);
  expect(r.stdout).toMatch(/stale-write\s+INVALID/);
});

it("a module's run folder committed with its project replays, and passes the gate, in another checkout", async () => {
  // The project as its author has it: the lock module, a counterexample in corpus/ (found with
  // the CLI, in a process of its own: a process loads one module per target name), a gate config.
  const mine = join(work, "mine");
  mkdirSync(mine);
  const source = readFileSync(join(root, "docs/examples/my-lock.mjs"), "utf8");
  writeFileSync(join(mine, "my-lock.mjs"), source.replace('name: "my-lease"', 'name: "their-lease"'));
  const { command, args } = nodeCommand(pathToFileURL(join(root, "src/cli/main.ts")));
  const fuzzArgs = [
    "fuzz",
    "--target",
    "module:./my-lock.mjs",
    "--faults",
    "pause",
    "--runs",
    "300",
    "--seed",
    "1",
  ];
  const r = spawnSync(command, [...args, ...fuzzArgs, "--out", "corpus/stale"], {
    cwd: mine,
    encoding: "utf8",
    timeout: 120_000,
  });
  expect(r.status, r.stderr).toBe(1);
  writeFileSync(join(mine, "lockcheck.config.json"), JSON.stringify({ corpus: ["corpus"], targets: [] }));
  // Another checkout of it (a CI runner's), where the author's folder does not exist.
  const ci = join(work, "ci");
  cpSync(mine, ci, { recursive: true });
  rmSync(mine, { recursive: true });

  const loaded = await loadScheduleArg(join(ci, "corpus", "stale"));
  expect(loaded.ok && loaded.value.target).toBe("sim:their-lease");
  expect(loaded.ok && loaded.value.module).toEqual({ path: join(ci, "my-lock.mjs") });
  const g = await gate({ cwd: ci });
  expect(g.ok && g.value.results.map((r) => [r.kind, r.met])).toEqual([["corpus", true]]);

  // Without the path from the folder (a schedule saved before it was recorded), it is not found.
  const file = join(ci, "corpus", "stale", "schedule.json");
  const old = JSON.parse(readFileSync(file, "utf8")) as Schedule;
  writeFileSync(file, JSON.stringify({ ...old, module: { path: old.module!.path } }));
  const lost = await loadScheduleArg(file);
  expect(lost.ok).toBe(false);
  expect(!lost.ok && lost.error.message).toMatch(/no such file/);
});
