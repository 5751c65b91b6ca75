/**
 * Temp dirs lockcheck creates for a run (server data, logs, clock files). Each is removed on
 * teardown, on exit and signals (undo list), and by the reaper if lockcheck is SIGKILLed.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Reaper } from "./reaper.js";
import { registerUndo } from "./undo.js";

export interface TempDir {
  readonly path: string;
  /** Removes the directory and everything in it (idempotent). */
  remove(): void;
}

/** Prefix of every temp dir lockcheck creates; tests look for leftovers by it. */
export const TEMP_PREFIX = "lockcheck-";

export function makeTempDir(name: string, reaper: Reaper | null): TempDir {
  const path = mkdtempSync(join(tmpdir(), `${TEMP_PREFIX}${name}-`));
  reaper?.trackDir(path);
  const undo = registerUndo(`temp dir ${path}`, () => {
    rmSync(path, { recursive: true, force: true });
    reaper?.forgetDir(path);
  });
  return { path, remove: () => undo.run() };
}
