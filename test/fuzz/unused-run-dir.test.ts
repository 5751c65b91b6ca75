/** Default folders of real runs never overwrite an earlier run: the next free `dir-N` is used. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { unusedRunDir } from "../../src/runner/run-folder.js";

const work = mkdtempSync(join(tmpdir(), "lockcheck-test-run-dir-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

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
