/**
 * Reading a JSONL history file: streamed, parsed and validated one chunk at a time, so a
 * 1M-op history never has to sit in memory as text and as ops at once.
 *
 * Problems are values, collected on the stream as it is read: `errors` (the history cannot be
 * trusted; once there is one, no more ops are yielded, but reading goes on to report up to
 * `maxErrors` of them) and `warnings` (it can be checked). An unparsable last line without a
 * terminating newline is what a crash mid-write leaves behind: after at least one complete
 * line it is a warning, and the ops before it are yielded; a file with no complete line at all
 * (a binary, a one-line fragment) is an error. A history with no ops (an empty or blank file) is
 * an error unless `allowEmpty`. An unreadable file is one error without a line number.
 */
import { err, type InputError, ok, type Result } from "../result.js";
import { emptyOpFacts, type OpFacts } from "./facts.js";
import { readLineChunks } from "./line-chunks.js";
import { readLineBatches } from "./lines.js";
import type { Op } from "./op.js";
import { parseOpLineInto } from "./parse.js";
import { createScanMemory, type ScanMemory, scanOpLine } from "./scan.js";
import { createHistoryValidator } from "./validate.js";

const NEWLINE = 10;
const CARRIAGE_RETURN = 13;
const OPEN_BRACE = 123;

export interface ReadHistoryOptions {
  /** Cross-line checks (pairing, order); default true. Per-line checks always run. */
  validate?: boolean;
  /** Stop reading after this many errors; default 20. */
  maxErrors?: number;
  /**
   * Accept a history with no ops; default true here. Checking one is refused by default
   * (`lockcheck check --allow-empty`, `check(…, { allowEmpty })`): a verdict of "valid" on
   * nothing usually means the wrong file.
   */
  allowEmpty?: boolean;
}

/** The error for a history with no ops. */
export function emptyHistoryError(path: string | undefined): InputError {
  return {
    ...(path !== undefined && { file: path }),
    message:
      "empty history: no ops were read (the file is empty, blank or has no complete line); pass --allow-empty (allowEmpty) to accept it",
  };
}

/**
 * A history being read. Iterate it (op by op, or `batches()` for fewer awaits); when the
 * iteration ends, `errors` and `warnings` are complete. Each iteration reads the file anew.
 */
export interface HistoryStream extends AsyncIterable<Op> {
  readonly path: string;
  batches(): AsyncIterable<Op[]>;
  /**
   * Reads the whole file, calling `visit` with the facts (see facts.ts) of each op that
   * `batches()` would yield, in order, and resolves to their count: the one-pass fast path,
   * with no batch arrays and, for lines in lockcheck's own shape, no op objects (scan.ts):
   * `facts.op` may be undefined. `facts` is reused for the next op.
   */
  visit(visit: (facts: OpFacts) => void): Promise<number>;
  readonly errors: InputError[];
  readonly warnings: InputError[];
}

export function readHistory(path: string, opts: ReadHistoryOptions = {}): HistoryStream {
  const validate = opts.validate ?? true;
  const maxErrors = opts.maxErrors ?? 20;
  const allowEmpty = opts.allowEmpty ?? true;
  const errors: InputError[] = [];
  const warnings: InputError[] = [];

  /** Yields batches of ops, or with `visit`, calls it per op instead and yields nothing. */
  async function* read(
    visit: ((facts: OpFacts) => void) | undefined,
    counter = { ops: 0 },
  ): AsyncGenerator<Op[]> {
    errors.length = 0;
    warnings.length = 0;
    const validator = validate ? createHistoryValidator(path, { errors, warnings }) : undefined;
    const facts = emptyOpFacts();
    // Only `visit` can do without op objects, so only it takes the scanner's fast path.
    const memory = visit === undefined ? undefined : createScanMemory();
    let opsRead = 0;
    // Whether a non-blank line with a "\n" after it was read: only then is an unparsable
    // unterminated last line taken for one cut off by a crash.
    let completeLine = false;
    let ops: Op[] = [];

    /** Takes one line's outcome (`facts` filled, or `problem`); false once reading should stop. */
    function take(problem: InputError | undefined, lineNo: number, cutOff: boolean): boolean {
      if (problem !== undefined) {
        if (cutOff && completeLine && problem.message.startsWith("not valid JSON")) {
          warnings.push({
            file: path,
            line: lineNo,
            message: `the last line is cut off (a crash mid-write?); it was ignored and the ${opsRead} ops before it were read`,
          });
        } else errors.push(problem);
      } else if (validator === undefined || validator.checkFacts(facts, lineNo)) {
        opsRead++;
        if (errors.length === 0) {
          if (visit === undefined) ops.push(facts.op as Op);
          else {
            counter.ops++;
            visit(facts);
          }
        }
      }
      return errors.length < maxErrors;
    }

    /** The `visit` path: byte chunks, each line scanned (scan.ts) or decoded and parsed. */
    async function scanFile(scan: ScanMemory): Promise<boolean> {
      let lineNo = 0;
      for await (const chunk of readLineChunks(path)) {
        const b = chunk.bytes;
        if (!chunk.terminated) {
          // The last line, with no "\n" after it: what a crash mid-write leaves.
          lineNo++;
          const line = b.toString("utf8");
          return line.trim() === "" || take(parseOpLineInto(line, lineNo, path, facts), lineNo, true);
        }
        // As lines.ts splits text: on "\n", dropping a trailing "\r"; blank lines are skipped
        // but counted, so line numbers match what an editor shows.
        for (let from = 0, nl = b.indexOf(NEWLINE); nl !== -1; from = nl + 1, nl = b.indexOf(NEWLINE, from)) {
          lineNo++;
          const end = nl > from && b[nl - 1] === CARRIAGE_RETURN ? nl - 1 : nl;
          if (end === from) continue;
          if (scanOpLine(b, from, end, facts, scan)) {
            completeLine = true;
            if (!take(undefined, lineNo, false)) return false;
            continue;
          }
          const line = b.toString("utf8", from, end);
          // Most lines start with "{": skip the whitespace scan for them.
          if (b[from] !== OPEN_BRACE && line.trim() === "") continue;
          completeLine = true;
          if (!take(parseOpLineInto(line, lineNo, path, facts), lineNo, false)) return false;
        }
      }
      return true;
    }

    try {
      if (memory !== undefined) {
        if (!(await scanFile(memory))) return;
      } else {
        for await (const batch of readLineBatches(path)) {
          ops = [];
          const { lines, lineNumbers, unterminatedLast } = batch;
          for (let i = 0; i < lines.length; i++) {
            const lineNo = lineNumbers[i]!;
            if (!take(parseOpLineInto(lines[i]!, lineNo, path, facts), lineNo, unterminatedLast)) return;
            completeLine = true;
          }
          if (ops.length > 0 && errors.length === 0) yield ops;
        }
      }
    } catch (e) {
      errors.push({ file: path, message: `cannot read the history: ${(e as Error).message}` });
      return;
    }
    validator?.finish();
    if (!allowEmpty && opsRead === 0 && errors.length === 0) errors.push(emptyHistoryError(path));
  }

  const batches = () => read(undefined);

  async function visit(f: (facts: OpFacts) => void): Promise<number> {
    const counter = { ops: 0 };
    for await (const _ of read(f, counter)) {
      // Nothing is yielded: `f` has seen every op.
    }
    return counter.ops;
  }

  return {
    path,
    errors,
    warnings,
    batches,
    visit,
    async *[Symbol.asyncIterator]() {
      for await (const ops of batches()) yield* ops;
    },
  };
}

/** The whole history in memory (validated), or every problem found. */
export async function readHistoryFile(
  path: string,
  opts: ReadHistoryOptions = {},
): Promise<Result<{ ops: Op[]; warnings: InputError[] }, InputError[]>> {
  const stream = readHistory(path, opts);
  const ops: Op[] = [];
  for await (const batch of stream.batches()) for (const op of batch) ops.push(op);
  return stream.errors.length > 0 ? err(stream.errors) : ok({ ops, warnings: stream.warnings });
}
