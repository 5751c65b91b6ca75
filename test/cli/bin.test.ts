/**
 * The `lockcheck` bin (package.json "bin") is the built dist/src/cli/main.js: it must be
 * executable, or `npx lockcheck …` in a clone fails with "Permission denied" whenever npm runs
 * the project's own bin directly (tsc writes files without the executable bit).
 */
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "../..");

describe("the lockcheck bin", () => {
  it("is the built CLI, executable, with a node shebang", () => {
    const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
      bin: Record<string, string>;
    };
    const bin = join(root, pkg.bin.lockcheck!);
    expect(bin).toBe(join(root, "dist/src/cli/main.js"));
    expect(statSync(bin).mode & 0o111, "executable bits").toBe(0o111);
    expect(readFileSync(bin, "utf8").split("\n")[0]).toBe("#!/usr/bin/env node");
  });
});
