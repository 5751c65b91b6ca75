/**
 * The longest line a history reader takes: one op is never near this, and a longer "line" is
 * almost always a file that is not a history (a binary, a JSON array on one line). Above it the
 * reader stops with an error instead of building a string V8 may not be able to hold (its limit
 * is about 512 M characters).
 */
export const MAX_LINE_BYTES = 256 * 1024 * 1024;

export function lineTooLong(): Error {
  return new Error(
    `a line is longer than ${MAX_LINE_BYTES / (1024 * 1024)} MiB, the limit for one op (is this a JSONL history?)`,
  );
}
