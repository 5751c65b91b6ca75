/**
 * Streams a text file as batches of lines, holding one chunk in memory at a time. Lines are
 * split on "\n" (a trailing "\r" is dropped); blank lines are skipped but still counted, so
 * line numbers match what an editor shows.
 */
import { createReadStream } from "node:fs";

export interface LineBatch {
  lines: string[];
  /** 1-based number of each line in `lines`. */
  lineNumbers: number[];
  /** True for the final batch when the file's last line has no terminating newline. */
  unterminatedLast: boolean;
}

const CHUNK_BYTES = 1 << 15;

/** Yields the file's non-blank lines in batches. Rejects (fs error) if the file cannot be read. */
export async function* readLineBatches(path: string): AsyncGenerator<LineBatch> {
  const stream = createReadStream(path, { encoding: "utf8", highWaterMark: CHUNK_BYTES });
  let rest = "";
  let lineNo = 0;
  for await (const chunk of stream as AsyncIterable<string>) {
    const text = rest + chunk;
    const lines: string[] = [];
    const lineNumbers: number[] = [];
    let start = 0;
    for (let nl = text.indexOf("\n"); nl !== -1; nl = text.indexOf("\n", start)) {
      lineNo++;
      const end = nl > start && text.charCodeAt(nl - 1) === 13 ? nl - 1 : nl;
      if (end > start) {
        const line = text.slice(start, end);
        // Most lines start with "{": skip the whitespace scan for them.
        if (line.charCodeAt(0) === 123 || line.trim() !== "") {
          lines.push(line);
          lineNumbers.push(lineNo);
        }
      }
      start = nl + 1;
    }
    rest = text.slice(start);
    if (lines.length > 0) yield { lines, lineNumbers, unterminatedLast: false };
  }
  if (rest.trim() !== "") yield { lines: [rest], lineNumbers: [lineNo + 1], unterminatedLast: true };
}
