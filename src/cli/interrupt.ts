/**
 * Ctrl-C (SIGINT) and SIGTERM during a long command: undo what it started in the real world,
 * say what it did and where that is on disk, and exit 130 or 143. Without this a fuzz
 * campaign or a real run ended silently (the undo list's own handler exits at once), and
 * the user learnt neither how far a search had got nor where a partial history was written.
 *
 * The handler is added before anything real starts, so it runs before the undo list's own
 * (src/real/hygiene/undo.ts), which process.exit then leaves with nothing to do.
 */
import { writeSync } from "node:fs";
import { undoRealWorldNow } from "../api/run-real.js";

const EXIT_CODE = { SIGINT: 130, SIGTERM: 143 } as const;

export type InterruptSignal = keyof typeof EXIT_CODE;

/**
 * Until the returned function is called, a SIGINT or SIGTERM undoes the real world now,
 * prints `lines()` (computed then, so they can say what is on disk) on stderr, and exits.
 * With `json` (a command run with --json), it also prints `json(signal)` on stdout, one
 * line, so that a script reading stdout gets an answer rather than nothing.
 */
export function onInterrupt(
  lines: () => readonly string[],
  json?: (signal: InterruptSignal) => unknown,
): () => void {
  const handle = (signal: InterruptSignal): void => {
    remove();
    undoRealWorldNow();
    let text: readonly string[];
    try {
      text = lines();
    } catch (e) {
      text = [`interrupted (${String(e)})`];
    }
    process.stderr.write(text.map((l) => `${l}\n`).join(""));
    if (json !== undefined) {
      // Written at once: process.exit does not wait for a write to a pipe to finish.
      try {
        writeSync(1, `${JSON.stringify(json(signal))}\n`);
      } catch {
        // stdout closed: the lines on stderr are all there is.
      }
    }
    process.exit(EXIT_CODE[signal]);
  };
  const onSigint = (): void => handle("SIGINT");
  const onSigterm = (): void => handle("SIGTERM");
  const remove = (): void => {
    process.off("SIGINT", onSigint);
    process.off("SIGTERM", onSigterm);
  };
  process.on("SIGINT", onSigint);
  process.on("SIGTERM", onSigterm);
  return remove;
}
