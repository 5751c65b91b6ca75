/**
 * Small, synchronous facts about and actions on OS processes, by pid, via /proc and signals.
 * Every function tolerates a process that has already gone (ESRCH is not an error here).
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";

/** Fields of /proc/<pid>/stat after the command name (which may contain spaces). */
function statFields(pid: number): string[] | null {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return null;
  }
  const close = text.lastIndexOf(")");
  if (close < 0) return null;
  return text
    .slice(close + 2)
    .trim()
    .split(" ");
}

/**
 * The process's start time in clock ticks since boot (field 22 of /proc/<pid>/stat), or
 * null if it is gone. A pid plus its start time names one process even after pid reuse.
 */
export function processStartTime(pid: number): string | null {
  // After the ")" field 3 (state) is index 0, so field 22 is index 19.
  return statFields(pid)?.[19] ?? null;
}

/** The one-letter state (R, S, T stopped, Z zombie, …), or null if gone. */
export function processState(pid: number): string | null {
  return statFields(pid)?.[0] ?? null;
}

/** True while the process exists and is not a zombie. */
export function isRunning(pid: number): boolean {
  const state = processState(pid);
  return state !== null && state !== "Z" && state !== "X";
}

/** Sends a signal; false if the process is gone. */
export function signal(pid: number, sig: NodeJS.Signals): boolean {
  try {
    process.kill(pid, sig);
    return true;
  } catch {
    return false;
  }
}

/**
 * Kills a process for good. SIGCONT first: Linux delivers SIGKILL to a stopped process
 * anyway, but we never want to leave anything of ours stopped, even if the kill fails.
 */
export function forceKill(pid: number): void {
  signal(pid, "SIGCONT");
  signal(pid, "SIGKILL");
}

/**
 * How to start a Node entry file in a child process: plain `node file.js` from the built
 * package, `node --import <tsx loader> file.ts` when running from TypeScript sources
 * (vitest, tsx). `entry` is resolved by the caller relative to its own import.meta.url.
 */
export function nodeCommand(entry: URL): { command: string; args: string[] } {
  const file = fileURLToPath(entry);
  if (!file.endsWith(".ts")) return { command: process.execPath, args: [file] };
  const tsxLoader = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;
  return { command: process.execPath, args: ["--import", tsxLoader, file] };
}

/** The sibling of `fromUrl` named `name` + the same extension as `fromUrl` (.ts or .js). */
export function siblingEntry(fromUrl: string, relativeStem: string): URL {
  const ext = fromUrl.endsWith(".ts") ? ".ts" : ".js";
  return new URL(`${relativeStem}${ext}`, fromUrl);
}
