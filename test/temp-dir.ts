/**
 * A temp dir for one test file: its path now, the dir itself made before the file's first test
 * and removed after its last. With every test of the file filtered out (`-t`), vitest runs
 * neither hook, and nothing is left behind (a dir made when the file is loaded was).
 */
import { randomBytes } from "node:crypto";
import { mkdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll } from "vitest";

export function testTempDir(prefix: string): string {
  const dir = join(tmpdir(), `${prefix}${randomBytes(6).toString("hex")}`);
  beforeAll(() => {
    mkdirSync(dir, { mode: 0o700 });
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}
