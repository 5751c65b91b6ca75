/**
 * Streams a text file as batches of lines, holding one chunk in memory at a time. Lines are
 * split on "\n" (a trailing "\r" is dropped); blank lines are skipped but still counted, so
 * line numbers match what an editor shows.
 */
import { createReadStream } from "node:fs";
import { lineTooLong, MAX_LINE_BYTES } from "./line-limit.js";

export interface LineBatch {
  lines: string[];
  /** 1-based number of each line in `lines`. */
  lineNumbers: number[];
  /** True for the final batch when the file's last line has no terminating newline. */
  unterminatedLast: boolean;
}

const CHUNK_BYTES = 1 << 15;

/**
 * Yields the file's non-blank lines in batches. Rejects (fs error) if the file cannot be read,
 * or if a line is longer than MAX_LINE_BYTES. A long line's pieces are collected and joined
 * once, so reading it takes time linear in its length.
 */
export async function* readLineBatches(path: string): AsyncGenerator<LineBatch> {
  const stream = createReadStream(path, { encoding: "utf8", highWaterMark: CHUNK_BYTES });
  // The pieces of a line begun in earlier chunks (no "\n" yet), and their total length.
  const pending: string[] = [];
  let pendingLength = 0;
  let lineNo = 0;
  for await (const chunk of stream as AsyncIterable<string>) {
    if (chunk.indexOf("\n") === -1) {
      pending.push(chunk);
      pendingLength += chunk.length;
      // UTF-16 units, not bytes: at least one per byte of UTF-8 would be a tighter bound.
      if (pendingLength > MAX_LINE_BYTES) throw lineTooLong();
      continue;
    }
    let text = chunk;
    if (pending.length > 0) {
      pending.push(chunk);
      text = pending.join("");
      pending.length = 0;
      pendingLength = 0;
    }
    const lines: string[] = [];
    const lineNumbers: number[] = [];
    let start = 0;
    for (let nl = text.indexOf("\n"); nl !== -1; nl = text.indexOf("\n", start)) {
      lineNo++;
      const end = nl > start && text.charCodeAt(nl - 1) === 13 ? nl - 1 : nl;
      if (end > start) {
        if (end - start > MAX_LINE_BYTES) throw lineTooLong();
        const line = text.slice(start, end);
        // Most lines start with "{": skip the whitespace scan for them.
        if (line.charCodeAt(0) === 123 || line.trim() !== "") {
          lines.push(line);
          lineNumbers.push(lineNo);
        }
      }
      start = nl + 1;
    }
    if (start < text.length) {
      pending.push(text.slice(start));
      pendingLength = text.length - start;
    }
    if (lines.length > 0) yield { lines, lineNumbers, unterminatedLast: false };
  }
  const rest = pending.join("");
  if (rest.trim() !== "") yield { lines: [rest], lineNumbers: [lineNo + 1], unterminatedLast: true };
}
