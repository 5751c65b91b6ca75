/**
 * A user's module with a syntax error, as `lockcheck` reports it (the built CLI, under plain
 * Node: its import() gives no line, so lockcheck finds it): file, line, the line itself and a
 * caret, exit 2. `npm test` builds first.
 */
import { spawnSync } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { testTempDir } from "../temp-dir.js";

const CLI = join(import.meta.dirname, "../../dist/src/cli/main.js");
const dir = testTempDir("lockcheck-cli-module-");
beforeAll(() => {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build\` first (npm test does)`);
});

describe("a module target that does not parse", () => {
  it("names the file and line and shows the spot", () => {
    writeFileSync(
      join(dir, "typo.mjs"),
      'export default {\n  name: "typo",\n  fencing: false,\n  x: (;\n};\n',
    );
    const r = spawnSync(process.execPath, [CLI, "fuzz", "--target", "module:./typo.mjs", "--runs", "1"], {
      cwd: dir,
      encoding: "utf8",
      env: { ...process.env, NO_COLOR: "1" },
      timeout: 60_000,
    });
    expect(r.status).toBe(2);
    expect(r.stderr).toBe(
      `error: ${join(dir, "typo.mjs")}:4: --target: cannot import: Unexpected token ';'\n    x: (;\n        ^\n`,
    );
  });
});

describe("fuzz --real", () => {
  const DOCS = join(import.meta.dirname, "../../docs");
  const fuzz = (...args: string[]) =>
    spawnSync(process.execPath, [CLI, "fuzz", ...args, "--runs", "1"], {
      cwd: DOCS,
      encoding: "utf8",
      env: { ...process.env, NO_COLOR: "1" },
      timeout: 60_000,
    });

  it("refuses a simulator target: a built-in target names its world", () => {
    const r = fuzz("--target", "sim:lease", "--real");
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("error: --real: only with a module: target");
    expect(r.stderr).toContain(
      "sim:lease runs in the simulator: name a real target (redis:…, etcd:…) instead",
    );
  });

  it("refuses a module with no real-server target, and says what to do", () => {
    const r = fuzz("--target", "module:./examples/plain-lock.mjs", "--real");
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("has no real-server target");
    expect(r.stderr).toContain("fuzz it without --real");
  });
});
