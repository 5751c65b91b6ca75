/**
 * The process-wide undo list: everything lockcheck creates in the real world (a server
 * process, a paused process, a temp dir, a proxy port) registers how to undo it, and the
 * undo runs on normal teardown, on an error, on process exit, and on SIGINT/SIGTERM.
 *
 * Undo actions are synchronous on purpose: `process.on("exit")` cannot wait for promises,
 * and a signal handler that awaits can be cut short by a second signal. Killing a process,
 * sending SIGCONT and removing a directory are all synchronous calls in Node.
 *
 * Actions run newest first (a client is killed before the server it talks to, and a server
 * before its temp dir is removed). After a SIGKILL of this process nothing here can run:
 * the reaper (reaper-script.ts) covers that case.
 */

export type UndoAction = () => void;

interface Entry {
  label: string;
  action: UndoAction;
}

const entries = new Map<number, Entry>();
let nextId = 0;
let handlersInstalled = false;

const EXIT_CODE_FOR: Record<"SIGINT" | "SIGTERM", number> = { SIGINT: 130, SIGTERM: 143 };

function onSignal(signal: "SIGINT" | "SIGTERM"): void {
  undoAll();
  process.exit(EXIT_CODE_FOR[signal]);
}
const onSigint = (): void => onSignal("SIGINT");
const onSigterm = (): void => onSignal("SIGTERM");
const onExit = (): void => undoAll();

function installHandlers(): void {
  if (handlersInstalled) return;
  handlersInstalled = true;
  process.on("SIGINT", onSigint);
  process.on("SIGTERM", onSigterm);
  process.on("exit", onExit);
}

function removeHandlers(): void {
  if (!handlersInstalled) return;
  handlersInstalled = false;
  process.off("SIGINT", onSigint);
  process.off("SIGTERM", onSigterm);
  process.off("exit", onExit);
}

export interface UndoHandle {
  /** Runs the action now (at most once overall) and unregisters it. */
  run(): void;
  /** Unregisters the action without running it (the thing was undone another way). */
  cancel(): void;
}

/**
 * Registers an undo action. The first registration installs the signal and exit handlers;
 * the last one to go removes them, so a library user's process is left as it was found.
 */
export function registerUndo(label: string, action: UndoAction): UndoHandle {
  const id = nextId++;
  entries.set(id, { label, action });
  installHandlers();
  const take = (): Entry | undefined => {
    const entry = entries.get(id);
    if (entry === undefined) return undefined;
    entries.delete(id);
    if (entries.size === 0) removeHandlers();
    return entry;
  };
  return {
    run() {
      const entry = take();
      if (entry !== undefined) runSafely(entry);
    },
    cancel() {
      take();
    },
  };
}

/** Runs every pending undo action, newest first. Never throws. */
export function undoAll(): void {
  const pending = [...entries.entries()].sort((a, b) => b[0] - a[0]);
  entries.clear();
  for (const [, entry] of pending) runSafely(entry);
  removeHandlers();
}

function runSafely(entry: Entry): void {
  try {
    entry.action();
  } catch (e) {
    process.stderr.write(`lockcheck: cleanup of ${entry.label} failed: ${String(e)}\n`);
  }
}
