/**
 * A gate entry with `real: true`: a user's LockAlgorithm module (docs/examples/my-lock.mjs)
 * fuzzed on a real redis-server, as `fuzz --real` does, held to its expectation. The unfenced
 * lease lock is a canary there: pauses must show its stale write on real servers too. The
 * saved run folder names the module, so its replay line needs no --target.
 */
import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TargetResult } from "../../src/report/gate-result.js";
import { planGate, runGate } from "../../src/runner/gate/gate.js";
import { parseGateConfig } from "../../src/runner/gate/gate-config.js";
import { missingBinaries } from "./helpers.js";
import { expectNothingLeftAfterEach } from "./run-helpers.js";

const missing = missingBinaries(["redis-server"]);
expectNothingLeftAfterEach();
const MY_LOCK = fileURLToPath(new URL("../../docs/examples/my-lock.mjs", import.meta.url));

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "lockcheck-test-gate-module-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe.skipIf(missing.length > 0)("a gate entry on real servers", () => {
  it("finds the unfenced module lock's stale write on a real redis-server and saves a replayable folder", async () => {
    const config = parseGateConfig(
      {
        output: "out",
        corpus: [],
        targets: [
          {
            target: `module:${MY_LOCK}`,
            real: true,
            resource: "unfenced",
            expect: "unsafe",
            faults: ["pause"],
            runs: 6,
          },
        ],
      },
      null,
      dir,
    );
    if (!config.ok) throw new Error(JSON.stringify(config.error));
    const report = await runGate(planGate(config.value, []), config.value, null);
    const r = report.results[0] as TargetResult;
    expect(r.name).toBe(`module:${MY_LOCK} --real (unfenced)`);
    expect(r.error).toBeUndefined();
    expect(r).toMatchObject({ met: true, violations: 1, real: true });
    const saved = JSON.parse(readFileSync(join(r.counterexample!.dir, "schedule.json"), "utf8"));
    expect(saved.target).toBe("redis:my-lease");
    expect(saved.module.path).toBe(MY_LOCK);
    expect(r.counterexample!.replay).toBe(`lockcheck replay ${join(r.counterexample!.dir, "schedule.json")}`);
  });
});
