/**
 * Shared helpers of the real-server tests: binary requirements (fail in CI, skip with a
 * printed reason elsewhere), leftover detection, and schedule building.
 */
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { type BinaryName, findBinary } from "../../src/real/cluster/binaries.js";
import type { Fault, Schedule, ScheduleOptions } from "../../src/schedule/schedule.js";

/**
 * Which of `names` are missing. In CI a missing binary is an error (the test must fail, not
 * skip silently); outside CI the caller skips, and the reason is printed.
 */
export function missingBinaries(names: readonly BinaryName[]): string[] {
  const missing = names.flatMap((n) => {
    const r = findBinary(n);
    return r.ok ? [] : [r.error];
  });
  if (missing.length > 0) {
    if (process.env.CI)
      throw new Error(`real-server tests need these binaries in CI:\n${missing.join("\n")}`);
    process.stderr.write(`skipping real-server tests: ${missing.join("; ")}\n`);
  }
  return missing;
}

/** Live (non-zombie) processes whose command line contains `needle`, as "pid cmd" lines. */
export function processesMatching(needle: string): string[] {
  let out = "";
  try {
    out = execFileSync("pgrep", ["-af", needle], { encoding: "utf8" });
  } catch {
    return []; // pgrep exits 1 when nothing matches
  }
  return (
    out
      .split("\n")
      .filter((l) => l.trim() !== "")
      .filter((l) => {
        const pid = Number(l.split(" ")[0]);
        if (pid === process.pid) return false;
        try {
          const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
          const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
          return state !== "Z" && state !== "X";
        } catch {
          return false;
        }
      })
      // pgrep itself and shells running it are not ours.
      .filter((l) => !/\bpgrep\b/.test(l))
  );
}

/** Processes of ours in a stopped state (T), among those matching `needle`. */
export function stoppedProcessesMatching(needle: string): string[] {
  return processesMatching(needle).filter((l) => {
    const pid = Number(l.split(" ")[0]);
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) === "T";
    } catch {
      return false;
    }
  });
}

/** Temp dirs whose name contains `needle`. */
export function tempDirsMatching(needle: string): string[] {
  return readdirSync(tmpdir()).filter((n) => n.includes(needle));
}

/** Polls `check` until it returns an empty list or `timeoutMs` passes; returns the last list. */
export async function waitForNone(check: () => string[], timeoutMs: number): Promise<string[]> {
  const deadline = Date.now() + timeoutMs;
  let last = check();
  while (last.length > 0 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
    last = check();
  }
  return last;
}

export function schedule(
  target: string,
  resource: Schedule["resource"],
  options: Partial<ScheduleOptions> & Pick<ScheduleOptions, "servers" | "ttlMs">,
  clients: Schedule["clients"],
  faults: Fault[],
): Schedule {
  return {
    version: 1,
    target,
    resource,
    seed: 1,
    options: {
      lockName: "lock",
      callTimeoutMs: 500,
      horizonMs: 4000,
      latencyMs: { min: 0, max: 0 },
      lossRate: 0,
      ...options,
    },
    clients,
    faults,
  };
}
