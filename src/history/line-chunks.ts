/**
 * Streams a file as byte chunks that hold whole lines: each chunk ends just after a "\n",
 * except a final chunk holding the last line when the file does not end with one. Line
 * splitting, "\r" and blank lines are the reader's business (read.ts); cutting at "\n" bytes
 * is safe for UTF-8, where that byte never occurs inside a multi-byte character.
 */
import { createReadStream } from "node:fs";
import { lineTooLong, MAX_LINE_BYTES } from "./line-limit.js";

export interface LineChunk {
  bytes: Buffer;
  /** False for the final chunk when it is a last line without a terminating "\n". */
  terminated: boolean;
}

const CHUNK_BYTES = 1 << 16;
const NEWLINE = 10;

/**
 * Rejects (fs error) if the file cannot be read, or if a line is longer than MAX_LINE_BYTES.
 * A long line's pieces are collected and joined once, so reading it takes time linear in its
 * length.
 */
export async function* readLineChunks(path: string): AsyncGenerator<LineChunk> {
  const stream = createReadStream(path, { highWaterMark: CHUNK_BYTES });
  // The pieces of a line begun in earlier chunks (no "\n" yet), and their total size.
  const pending: Buffer[] = [];
  let pendingBytes = 0;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    const last = chunk.lastIndexOf(NEWLINE);
    if (last === -1) {
      pending.push(chunk);
      pendingBytes += chunk.length;
      if (pendingBytes > MAX_LINE_BYTES) throw lineTooLong();
      continue;
    }
    let from = 0;
    if (pending.length > 0) {
      // Finish the line the previous chunks started (one copy), then the rest without one.
      const first = chunk.indexOf(NEWLINE);
      pending.push(chunk.subarray(0, first + 1));
      if (pendingBytes + first + 1 > MAX_LINE_BYTES) throw lineTooLong();
      yield { bytes: Buffer.concat(pending), terminated: true };
      from = first + 1;
      pending.length = 0;
      pendingBytes = 0;
    }
    if (from <= last) yield { bytes: chunk.subarray(from, last + 1), terminated: true };
    if (last + 1 < chunk.length) {
      pending.push(chunk.subarray(last + 1));
      pendingBytes = chunk.length - last - 1;
    }
  }
  if (pendingBytes > 0) yield { bytes: Buffer.concat(pending), terminated: false };
}
