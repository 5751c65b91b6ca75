/**
 * Finding the server binaries lockcheck runs: an explicit path (option or environment
 * variable) wins, else the first match on PATH. A missing binary is an error that says how
 * to install it; lockcheck never installs anything itself.
 */
import { accessSync, constants, statSync } from "node:fs";
import { delimiter, join } from "node:path";
import { err, ok, type Result } from "../../result.js";

export type BinaryName = "redis-server" | "etcd" | "cc";

const INSTALL_HINT: Record<BinaryName, string> = {
  "redis-server":
    "install it (Debian/Ubuntu: apt-get install redis-server; macOS: brew install redis) " +
    "or set LOCKCHECK_REDIS_SERVER=/path/to/redis-server (lockcheck run also takes --redis-server)",
  etcd:
    "install it (Debian/Ubuntu: apt-get install etcd-server; macOS: brew install etcd) " +
    "or set LOCKCHECK_ETCD=/path/to/etcd (lockcheck run also takes --etcd)",
  cc:
    "a C compiler builds the clock shim used by clock faults on Redis nodes; install one " +
    "(Debian/Ubuntu: apt-get install gcc) or set CC",
};

const ENV_VAR: Record<BinaryName, string> = {
  "redis-server": "LOCKCHECK_REDIS_SERVER",
  etcd: "LOCKCHECK_ETCD",
  cc: "CC",
};

function isExecutableFile(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Searches PATH (or `pathVar`) for an executable named `name`. */
export function whichSync(name: string, pathVar = process.env.PATH ?? ""): string | null {
  if (name.includes("/")) return isExecutableFile(name) ? name : null;
  for (const dir of pathVar.split(delimiter)) {
    if (dir === "") continue;
    const candidate = join(dir, name);
    if (isExecutableFile(candidate)) return candidate;
  }
  return null;
}

/**
 * Resolves a binary: `explicit` (an option) first, then its environment variable, then PATH.
 * An explicit path that is not executable is an error too (not silently replaced by PATH).
 */
export function findBinary(name: BinaryName, explicit?: string): Result<string, string> {
  const given = explicit ?? process.env[ENV_VAR[name]];
  if (given !== undefined && given !== "") {
    const found = whichSync(given);
    return found !== null
      ? ok(found)
      : err(`${name}: "${given}" is not an executable file; ${INSTALL_HINT[name]}`);
  }
  const onPath = whichSync(name);
  return onPath !== null ? ok(onPath) : err(`${name} not found on PATH; ${INSTALL_HINT[name]}`);
}
