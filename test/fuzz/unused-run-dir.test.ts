/** Default folders of real runs never overwrite an earlier run: the next free `dir-N` is used. */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { unusedRunDir } from "../../src/runner/run-folder.js";
import { testTempDir } from "../temp-dir.js";

const work = testTempDir("lockcheck-test-run-dir-");

describe("unusedRunDir", () => {
  it("keeps a folder that does not exist or is empty", async () => {
    expect(await unusedRunDir(join(work, "absent"))).toBe(join(work, "absent"));
    mkdirSync(join(work, "empty"));
    expect(await unusedRunDir(join(work, "empty"))).toBe(join(work, "empty"));
  });

  it("moves past folders that hold a run, to the first free number", async () => {
    const dir = join(work, "redis-lease-3-real");
    for (const d of [dir, `${dir}-2`, `${dir}-4`]) {
      mkdirSync(d);
      writeFileSync(join(d, "schedule.json"), "{}");
    }
    expect(await unusedRunDir(dir)).toBe(`${dir}-3`);
  });
});
