/**
 * Reading a JSONL history file: streamed, parsed and validated one chunk at a time, so a
 * 1M-op history never has to sit in memory as text and as ops at once.
 *
 * Problems are values, collected on the stream as it is read: `errors` (the history cannot be
 * trusted; once there is one, no more ops are yielded, but reading goes on to report up to
 * `maxErrors` of them) and `warnings` (it can be checked). An unparsable last line without a
 * terminating newline is what a crash mid-write leaves behind: it is a warning, and the ops
 * before it are yielded. An unreadable file is one error without a line number.
 */
import { err, type InputError, ok, type Result } from "../result.js";
import { emptyOpFacts, type OpFacts } from "./facts.js";
import { readLineBatches } from "./lines.js";
import type { Op } from "./op.js";
import { parseOpLineInto } from "./parse.js";
import { createHistoryValidator } from "./validate.js";

export interface ReadHistoryOptions {
  /** Cross-line checks (pairing, order); default true. Per-line checks always run. */
  validate?: boolean;
  /** Stop reading after this many errors; default 20. */
  maxErrors?: number;
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
   * with no batch arrays. `facts` is reused for the next op.
   */
  visit(visit: (facts: OpFacts) => void): Promise<number>;
  readonly errors: InputError[];
  readonly warnings: InputError[];
}

export function readHistory(path: string, opts: ReadHistoryOptions = {}): HistoryStream {
  const validate = opts.validate ?? true;
  const maxErrors = opts.maxErrors ?? 20;
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
    let opsRead = 0;
    try {
      for await (const batch of readLineBatches(path)) {
        const ops: Op[] = [];
        const { lines, lineNumbers } = batch;
        for (let i = 0; i < lines.length; i++) {
          const lineNo = lineNumbers[i]!;
          const problem = parseOpLineInto(lines[i]!, lineNo, path, facts);
          if (problem !== undefined) {
            if (batch.unterminatedLast && problem.message.startsWith("not valid JSON")) {
              warnings.push({
                file: path,
                line: lineNo,
                message: `the last line is cut off (a crash mid-write?); it was ignored and the ${opsRead} ops before it were read`,
              });
            } else errors.push(problem);
          } else if (validator === undefined || validator.checkFacts(facts, lineNo)) {
            opsRead++;
            if (errors.length === 0) {
              if (visit === undefined) ops.push(facts.op);
              else {
                counter.ops++;
                visit(facts);
              }
            }
          }
          if (errors.length >= maxErrors) return;
        }
        if (ops.length > 0 && errors.length === 0) yield ops;
      }
    } catch (e) {
      errors.push({ file: path, message: `cannot read the history: ${(e as Error).message}` });
      return;
    }
    validator?.finish();
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
