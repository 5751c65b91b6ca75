/**
 * A schedule on which the simulated etcd cluster once spun forever at one instant of virtual
 * time: under clock drift a member's election timer, due at its deadline, read the monotonic
 * clock a hair before it (mono → true time → mono rounds), re-armed itself for that hair, and
 * fired again at the same true time, endlessly (src/sim/servers/raft.ts, electionTimerDue).
 * The schedule is a fuzz draw (sim:consensus, 4 repeating clients, 60 pause and clock faults
 * over 30 s); dropping any one of its faults hides the loop, so it is kept whole.
 *
 * The loop blocks the thread, so the run happens in a child process; the time limit only
 * catches a hang (the run takes well under a second).
 */
import { spawnSync } from "node:child_process";
import { join, resolve } from "node:path";
import { expect, it } from "vitest";

const root = resolve(import.meta.dirname, "../..");
const tsx = import.meta.resolve("tsx");
const fixture = join(root, "test/fixtures/sim/drift-election-loop.json");

it("sim:consensus finishes a run whose election timers fall due under clock drift", () => {
  const r = spawnSync(
    process.execPath,
    ["--import", tsx, join(root, "src/cli/main.ts"), "replay", fixture, "--json"],
    { encoding: "utf8", timeout: 120_000, env: { ...process.env, NO_COLOR: "1" } },
  );
  expect(r.signal, "the run hung (killed at the time limit)").toBeNull();
  expect(r.status, r.stderr).toBe(1);
  const summary = JSON.parse(r.stdout) as { ops: number; verdicts: { checker: string; valid: boolean }[] };
  // Four clients cycling for 30 s, not a run cut short; and the stale write it shows.
  expect(summary.ops).toBeGreaterThan(1000);
  expect(summary.verdicts.find((v) => v.checker === "stale-write")?.valid).toBe(false);
});
