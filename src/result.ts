/** Errors are values: functions that can fail for reasons the caller must handle return a Result. */
export type Result<T, E> = { ok: true; value: T } | { ok: false; error: E };

export function ok<T>(value: T): { ok: true; value: T } {
  return { ok: true, value };
}

export function err<E>(error: E): { ok: false; error: E } {
  return { ok: false, error };
}

/** A problem with user input, located precisely enough to fix it. */
export interface InputError {
  /** File the problem is in, if it came from a file. */
  file?: string;
  /** 1-based line number, if known. */
  line?: number;
  /** Field or JSON path, if known (e.g. "token", "faults[2].durationMs"). */
  field?: string;
  /** What was wrong and what was expected. */
  message: string;
}

/**
 * An InputError as one line, `file:line: field: message` as compilers print it (editors jump to
 * it), leaving out the parts it does not have; a line without a file is `line N: …`. The one
 * format of bad input everywhere: the cli's stderr, the library's LockcheckInputError, the gate.
 */
export function formatInputError(e: InputError): string {
  const at =
    e.file !== undefined
      ? e.line !== undefined
        ? `${e.file}:${e.line}: `
        : `${e.file}: `
      : e.line !== undefined
        ? `line ${e.line}: `
        : "";
  return `${at}${e.field === undefined ? "" : `${e.field}: `}${e.message}`;
}
