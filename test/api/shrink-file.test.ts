/**
 * `shrinkScheduleFile` (what `lockcheck shrink` runs) tells its caller, as shrinking starts,
 * which target it shrinks on and whether that target is deterministic: the command's
 * progress line counts the smaller failures kept only on real servers, where they are kept
 * and saved one by one.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { shrinkScheduleFile } from "../../src/api/shrink.js";
import { scheduleFor } from "../fuzz/schedules.js";
import { testTempDir } from "../temp-dir.js";

const work = testTempDir("lockcheck-shrink-file-");

describe("shrinkScheduleFile", () => {
  it("calls onShrinkStart once, with the target's name and that it is deterministic", async () => {
    const failing = scheduleFor("sim:lease", {
      resource: "unfenced",
      clients: [[{ thinkMs: 0, holdMs: 10, writes: 1 }], [{ thinkMs: 100, holdMs: 10, writes: 1 }]],
      faults: [{ kind: "pause-at", client: 0, checkpoint: "acquired", occurrence: 0, durationMs: 2500 }],
    });
    const input = join(work, "failing.json");
    writeFileSync(input, JSON.stringify(failing));
    const starts: [string, boolean][] = [];
    const r = await shrinkScheduleFile(input, {
      maxRuns: 200,
      runs: 2,
      marginMs: 50,
      simFirst: true,
      out: join(work, "shrunk"),
      onShrinkStart: (name, deterministic) => starts.push([name, deterministic]),
    });
    expect(r.ok && r.value.kind).toBe("shrunk");
    expect(starts).toEqual([["sim:lease", true]]);
  });
});
