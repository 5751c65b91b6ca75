/**
 * Builds the clock shim (clockshim.c) with the machine's C compiler, once per source version,
 * into a per-user cache dir: $XDG_CACHE_HOME/lockcheck or ~/.cache/lockcheck. Built at set-up
 * (not at install time) so that lockcheck needs a compiler only when a run has clock faults
 * on Redis nodes.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { err, ok, type Result } from "../../result.js";
import { findBinary } from "../cluster/binaries.js";

/**
 * The C source: next to this file when running from sources; from the built package
 * (dist/src/real/shim/build.js) it is the repository's src/real/shim/clockshim.c.
 */
function locateSource(): string | null {
  const candidates = [
    new URL("./clockshim.c", import.meta.url),
    new URL("../../../../src/real/shim/clockshim.c", import.meta.url),
  ];
  for (const c of candidates) {
    const path = fileURLToPath(c);
    if (existsSync(path)) return path;
  }
  return null;
}

function cacheDir(): string {
  const base = process.env.XDG_CACHE_HOME || join(homedir(), ".cache");
  return join(base, "lockcheck");
}

/** Path to the built shim library, building it if needed. */
export function ensureClockShim(cc?: string): Result<string, string> {
  const source = locateSource();
  if (source === null) return err("clock shim source clockshim.c not found next to lockcheck's code");
  const text = readFileSync(source);
  const hash = createHash("sha256").update(text).digest("hex").slice(0, 16);
  const dir = cacheDir();
  const lib = join(dir, `clockshim-${hash}.so`);
  if (existsSync(lib)) return ok(lib);
  const compiler = findBinary("cc", cc);
  if (!compiler.ok) return compiler;
  mkdirSync(dir, { recursive: true });
  // Build under a unique name, then rename: concurrent runs never see a half-written library.
  const tmp = `${lib}.${process.pid}.tmp`;
  try {
    execFileSync(compiler.value, ["-shared", "-fPIC", "-O2", "-o", tmp, source], { stdio: "pipe" });
    renameSync(tmp, lib);
  } catch (e) {
    rmSync(tmp, { force: true });
    const stderr = (e as { stderr?: Buffer }).stderr?.toString() ?? String(e);
    return err(`building the clock shim with ${compiler.value} failed: ${stderr.trim()}`);
  }
  return ok(lib);
}
