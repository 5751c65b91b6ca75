/**
 * Writing JSONL histories.
 *
 * `openHistoryWriter` is for recording while a run goes on: every `append` is one write(2) of
 * one whole line, so if the recording process dies, the file holds every op appended before
 * and at most a partial last line (which the reader reports as a warning and skips).
 * `writeHistory` writes a complete history in large buffered chunks.
 */
import { closeSync, openSync, writeSync } from "node:fs";
import { open } from "node:fs/promises";
import { err, type InputError, ok, type Result } from "../result.js";
import type { Op } from "./op.js";
import { serializeOp } from "./serialize.js";

export interface HistoryWriter {
  readonly path: string;
  /** Appends one op as one line; it is in the file (the OS's page cache) when this returns. */
  append(op: Op): void;
  /** Closes the file; appending afterwards is a programming error and throws. */
  close(): void;
}

function ioError(path: string, what: string, e: unknown): InputError {
  return { file: path, message: `cannot ${what}: ${(e as Error).message}` };
}

/** Creates (or truncates) `path` for appending ops. */
export function openHistoryWriter(path: string): Result<HistoryWriter, InputError> {
  let fd: number;
  try {
    fd = openSync(path, "w");
  } catch (e) {
    return err(ioError(path, "create the history file", e));
  }
  let closed = false;
  return ok({
    path,
    append(op) {
      if (closed) throw new Error(`HistoryWriter.append: ${path} is already closed`);
      writeSync(fd, `${serializeOp(op)}\n`);
    },
    close() {
      if (closed) return;
      closed = true;
      closeSync(fd);
    },
  });
}

const FLUSH_CHARS = 1 << 20;

/** Writes all `ops` to `path` (created or truncated), one JSONL line each. */
export function writeHistory(
  path: string,
  ops: Iterable<Op> | AsyncIterable<Op>,
): Promise<Result<void, InputError>> {
  return writeLines(path, ops, serializeOp);
}

/** Writes `format(op)` for each op, one per line, in large buffered chunks. */
export async function writeLines(
  path: string,
  ops: Iterable<Op> | AsyncIterable<Op>,
  format: (op: Op) => string,
): Promise<Result<void, InputError>> {
  let file: Awaited<ReturnType<typeof open>>;
  try {
    file = await open(path, "w");
  } catch (e) {
    return err(ioError(path, "create the history file", e));
  }
  try {
    let buf = "";
    for await (const op of ops) {
      buf += `${format(op)}\n`;
      if (buf.length >= FLUSH_CHARS) {
        await file.write(buf);
        buf = "";
      }
    }
    if (buf.length > 0) await file.write(buf);
    return ok(undefined);
  } catch (e) {
    return err(ioError(path, "write the history file", e));
  } finally {
    await file.close();
  }
}
