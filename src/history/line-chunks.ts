/**
 * Streams a file as byte chunks that hold whole lines: each chunk ends just after a "\n",
 * except a final chunk holding the last line when the file does not end with one. Line
 * splitting, "\r" and blank lines are the reader's business (read.ts); cutting at "\n" bytes
 * is safe for UTF-8, where that byte never occurs inside a multi-byte character.
 */
import { createReadStream } from "node:fs";

export interface LineChunk {
  bytes: Buffer;
  /** False for the final chunk when it is a last line without a terminating "\n". */
  terminated: boolean;
}

const CHUNK_BYTES = 1 << 16;
const NEWLINE = 10;

/** Rejects (fs error) if the file cannot be read. */
export async function* readLineChunks(path: string): AsyncGenerator<LineChunk> {
  const stream = createReadStream(path, { highWaterMark: CHUNK_BYTES });
  let rest: Buffer | undefined;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    const last = chunk.lastIndexOf(NEWLINE);
    if (last === -1) {
      rest = rest === undefined ? chunk : Buffer.concat([rest, chunk]);
      continue;
    }
    let from = 0;
    if (rest !== undefined) {
      // Finish the line the previous chunk started (a small copy), then the rest without one.
      const first = chunk.indexOf(NEWLINE);
      yield { bytes: Buffer.concat([rest, chunk.subarray(0, first + 1)]), terminated: true };
      from = first + 1;
      rest = undefined;
    }
    if (from <= last) yield { bytes: chunk.subarray(from, last + 1), terminated: true };
    if (last + 1 < chunk.length) rest = chunk.subarray(last + 1);
  }
  if (rest !== undefined && rest.length > 0) yield { bytes: rest, terminated: false };
}
