/**
 * A child process lockcheck owns: started with an argument array (never a shell string),
 * registered with the undo list and the reaper from birth, unregistered when it exits.
 * Pausing goes through here so teardown always knows what to SIGCONT.
 */
import { type ChildProcess, type StdioOptions, spawn } from "node:child_process";
import { forceKill, signal } from "./processes.js";
import type { Reaper } from "./reaper.js";
import { registerUndo, type UndoHandle } from "./undo.js";

export interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/**
 * What the faults need of a server's process: a ManagedProcess here, or a container in the
 * docker backend (src/real/docker/world.ts), where pause is the cgroup freezer.
 */
export type ServerProcess = Pick<
  ManagedProcess,
  "label" | "pid" | "hasExited" | "isPaused" | "pause" | "resume"
>;

export interface ManagedProcess {
  readonly label: string;
  readonly pid: number;
  readonly child: ChildProcess;
  /** Resolves when the process has exited (never rejects). */
  readonly exited: Promise<ExitInfo>;
  hasExited(): boolean;
  isPaused(): boolean;
  /** SIGSTOP: the process runs nothing until resumed (a GC pause, a frozen VM). */
  pause(): void;
  /** SIGCONT. */
  resume(): void;
  /** Records that the process stopped itself (SIGSTOP to itself at a checkpoint). */
  notePausedBySelf(): void;
  /** SIGCONT + SIGKILL, then waits for the exit. */
  kill(): Promise<ExitInfo>;
}

export interface SpawnSpec {
  /** Names the process in errors and cleanup messages, e.g. "redis server:2". */
  label: string;
  command: string;
  args: readonly string[];
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  stdio?: StdioOptions;
}

export function spawnManaged(spec: SpawnSpec, reaper: Reaper | null): ManagedProcess {
  const child = spawn(spec.command, [...spec.args], {
    env: spec.env ?? process.env,
    cwd: spec.cwd,
    stdio: spec.stdio ?? ["ignore", "ignore", "ignore"],
  });
  let exitInfo: ExitInfo | null = null;
  // Pauses nest (two overlapping faults on one node): it runs again when the last one ends.
  let pauses = 0;
  // A spawn failure (ENOENT) arrives as "error" with no pid; callers check binaries first.
  const exited = new Promise<ExitInfo>((resolve) => {
    child.once("exit", (code, sig) => {
      exitInfo = { code, signal: sig };
      resolve(exitInfo);
    });
    child.once("error", () => {
      if (child.pid === undefined) {
        exitInfo = { code: null, signal: null };
        resolve(exitInfo);
      }
    });
  });
  const pid = child.pid ?? -1;
  let undo: UndoHandle | null = null;
  if (pid > 0) {
    reaper?.trackProcess(pid);
    undo = registerUndo(spec.label, () => {
      if (exitInfo === null) forceKill(pid);
    });
    void exited.then(() => {
      pauses = 0;
      reaper?.forgetProcess(pid);
      undo?.cancel();
    });
  }
  return {
    label: spec.label,
    pid,
    child,
    exited,
    hasExited: () => exitInfo !== null,
    isPaused: () => pauses > 0,
    pause() {
      if (exitInfo === null && signal(pid, "SIGSTOP")) pauses++;
    },
    resume() {
      pauses = Math.max(0, pauses - 1);
      if (exitInfo === null && pauses === 0) signal(pid, "SIGCONT");
    },
    notePausedBySelf() {
      if (exitInfo === null) pauses++;
    },
    async kill() {
      if (exitInfo === null && pid > 0) forceKill(pid);
      pauses = 0;
      return exited;
    },
  };
}
