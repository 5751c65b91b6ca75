/**
 * The gate's corpus holds run folders of a user's library found on real servers: the entry's
 * schedule.json names the adapter by path, the gate loads it and re-runs the schedule on real
 * servers, up to REAL_ATTEMPTS times, until the recorded verdicts come back.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { checkCorpusEntry, findCorpusEntries, REAL_ATTEMPTS } from "../../src/runner/gate/gate-corpus.js";
import { loadSchedule } from "../../src/schedule/load.js";
import type { Schedule } from "../../src/schedule/schedule.js";
import { testTempDir } from "../temp-dir.js";
import { missingBinaries, schedule } from "./helpers.js";
import { expectNothingLeftAfterEach } from "./run-helpers.js";

const missing = missingBinaries(["redis-server"]);
expectNothingLeftAfterEach();
const LIBRARIES = fileURLToPath(new URL("../../docs/examples/libraries/", import.meta.url));
const ADAPTER = join(LIBRARIES, "redis-semaphore-mutex.mjs");
const work = testTempDir("lockcheck-test-gate-corpus-");

/** A corpus entry: the adapter's schedule, the verdicts it recorded, and a history (not read on a re-run). */
function entry(name: string, s: Schedule, staleWrite: boolean): void {
  const dir = join(work, "corpus", name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "schedule.json"), JSON.stringify({ ...s, module: { path: ADAPTER } }));
  writeFileSync(join(dir, "expected.json"), JSON.stringify({ verdicts: { "stale-write": staleWrite } }));
  writeFileSync(join(dir, "history.jsonl"), "");
}

describe.skipIf(missing.length > 0)("the gate's corpus on real servers", () => {
  it("loads a library adapter's entry by the path its schedule records and re-runs it until its verdict comes back", async () => {
    // docs' paused-holder.json: the holder SIGSTOPped past its TTL writes after the next holder.
    const pausedHolder = await loadSchedule(join(LIBRARIES, "paused-holder.json"));
    if (!pausedHolder.ok) throw new Error(JSON.stringify(pausedHolder.error));
    entry("paused-holder", pausedHolder.value, false);
    // Recorded as stale, but one client alone with no fault never writes stale: lost for good.
    entry(
      "never-again",
      schedule(
        "redis:redis-semaphore-mutex",
        "unfenced",
        { servers: 1, ttlMs: 1000, callTimeoutMs: 2000, horizonMs: 600 },
        [{ id: 0, cycles: [{ thinkMs: 0, holdMs: 100, writes: 1 }] }],
        [],
      ),
      false,
    );
    const found = await findCorpusEntries([join(work, "corpus")], work);
    if (!found.ok) throw new Error(JSON.stringify(found.error));
    const [lost, paused] = found.value;
    expect(await checkCorpusEntry(paused!)).toMatchObject({
      mode: "re-run",
      met: true,
      actual: { "stale-write": false },
    });
    const never = await checkCorpusEntry(lost!);
    expect(never.met).toBe(false);
    expect(never.error).toBeUndefined();
    expect(never.mismatches).toEqual([
      "stale-write: recorded false, now true",
      `none of ${REAL_ATTEMPTS} runs on real servers got the recorded verdicts (the last one's are above)`,
    ]);
  });
});
