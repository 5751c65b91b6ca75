/**
 * A counterexample of a module target (here the LockAlgorithm of docs/examples/my-lock.mjs,
 * fuzzed in the simulator) is saved with the module's path in its schedule, so the replay
 * command printed for it works as printed from any working folder.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, expect, it } from "vitest";
import { fuzz } from "../../src/index.js";
import { nodeCommand } from "../../src/real/hygiene/processes.js";
import type { Schedule } from "../../src/schedule/schedule.js";

const root = join(import.meta.dirname, "../..");
const work = mkdtempSync(join(tmpdir(), "lockcheck-test-module-replay-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

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
  expect(saved.module).toEqual({ path: join(root, "docs/examples/my-lock.mjs") });

  const { command, args } = nodeCommand(pathToFileURL(join(root, "src/cli/main.ts")));
  const replay = report.counterexample!.replay.split(" ").slice(1);
  const r = spawnSync(command, [...args, ...replay], { cwd: work, encoding: "utf8", timeout: 120_000 });
  expect(r.status, r.stderr).toBe(1);
  expect(r.stdout).toMatch(/^sim:my-lease \(unfenced\)/);
  expect(r.stdout).toMatch(/stale-write\s+INVALID/);
});
