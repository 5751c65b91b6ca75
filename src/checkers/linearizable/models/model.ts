/**
 * What the linearizability checker (checkers/linearizable/linearizable.ts) checks against: a sequential
 * specification, and the operations of a history in the checker's own shape.
 *
 * Models are pure and deterministic: the state after an operation is a function of the state
 * before it, the operation's input and its observed output. An operation whose output nobody
 * observed (Jepsen's `:info`, a timed-out read) is stepped with `output === undefined`, and the
 * model must then allow every output the operation could have had.
 */

/**
 * One operation of a history, as an interval: it took effect at some single instant between
 * `call` and `ret`, both inclusive, or — when `ret` is `Infinity` — at any instant after `call`
 * or never (Jepsen's `:info`: "may or may not have happened").
 *
 * Intervals are closed, so two operations where one's `ret` equals the other's `call` are
 * concurrent: with coarse clocks, equal timestamps do not prove an order.
 */
export interface LinOp<I, O> {
  /** Client process; informational (the checker orders operations by their intervals only). */
  process: number | string;
  /** When the call started, in any unit shared by the whole history (time or event position). */
  call: number;
  /** When the caller learned the outcome (≥ `call`); `Infinity` if it never did. */
  ret: number;
  input: I;
  /** The observed outcome; `undefined` when unknown (then the model allows any outcome). */
  output: O | undefined;
  /**
   * History positions of this operation, for reports: the invoke, then the completion when
   * there is one.
   */
  refs: readonly number[];
  /** When the op completed (or, if it never did, was invoked), in ns since the run started, if known. */
  time?: number;
}

/** A state's identity for the search cache: two states are equal exactly when their keys are (`Map` semantics). */
export type StateKey = string | number | bigint | boolean | null;

export interface Model<S, I, O> {
  /** As given to `--model`, e.g. "mutex". */
  readonly name: string;
  init(): S;
  /**
   * The state after `input` produced `output` in `state`, or `undefined` if that cannot happen.
   * With `output === undefined` (outcome unknown), any outcome the operation could have had is
   * allowed; the model returns the state it would then be in.
   */
  step(state: S, input: I, output: O | undefined): S | undefined;
  /** Equal keys ⇔ equal states. Called once per distinct transition, so it may cost O(size of state). */
  key(state: S): StateKey;
  /**
   * Set when states are already canonical ids: non-negative 32-bit integers, equal exactly when
   * the states are equal. The checker then uses them as they are instead of interning `key`s.
   */
  readonly statesAreIds?: boolean;
  /**
   * Splits a history into independent sub-histories that are each checked on their own
   * (P-compositionality, e.g. one per key of a key-value store). The history is linearizable
   * iff every part is. Absent: the history is checked whole.
   */
  partition?(ops: readonly LinOp<I, O>[]): Partition<I, O>[];
  /** One short line for reports, e.g. "acquire → ok" or "cas 1→2 → fail". */
  describeOp(input: I, output: O | undefined): string;
  describeState(state: S): string;
}

/** An independent part of a history, named for reports (e.g. `key "3"`, `lock "a"`). */
export interface Partition<I, O> {
  name: string;
  ops: LinOp<I, O>[];
}

/** Groups ops by a key of their input, preserving order within each group and first-seen order of groups. */
export function partitionBy<I, O>(
  ops: readonly LinOp<I, O>[],
  label: string,
  keyOf: (input: I) => string,
): Partition<I, O>[] {
  const groups = new Map<string, LinOp<I, O>[]>();
  for (const op of ops) {
    const k = keyOf(op.input);
    let g = groups.get(k);
    if (g === undefined) {
      g = [];
      groups.set(k, g);
    }
    g.push(op);
  }
  return [...groups].map(([k, g]) => ({ name: `${label} ${JSON.stringify(k)}`, ops: g }));
}
