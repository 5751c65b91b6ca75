/**
 * Per-client state keyed by process id, for the validator and the checkers.
 *
 * Why not a plain array indexed by process number: a history may number its clients anyhow. An
 * id of 2^32 or more is not an array index at all (it becomes a named property, which `for … of`
 * skips), and an id of 3·10^8 makes a sparse array whose walk costs time in the id, not in the
 * ops. Small ids, which lockcheck's own histories use, stay in a dense array (the hot path of
 * million-op checks); any other id goes to a Map. Either way, time is proportional to the ops.
 */

/** Ids in [0, DENSE_LIMIT) are array slots; others are Map keys. */
const DENSE_MASK = 0xffff;

export class ProcessMap<T> {
  private readonly dense: Array<T | undefined> = [];
  private readonly sparse = new Map<number | string, T>();

  get(process: number | string): T | undefined {
    // One test for "an integer in [0, 65536)": any other number changes under the mask.
    return typeof process === "number" && (process & DENSE_MASK) === process
      ? this.dense[process]
      : this.sparse.get(process);
  }

  /** Sets (or, with undefined, clears) the entry of `process`. */
  set(process: number | string, value: T | undefined): void {
    if (typeof process === "number" && (process & DENSE_MASK) === process) this.dense[process] = value;
    else if (value === undefined) this.sparse.delete(process);
    else this.sparse.set(process, value);
  }

  /** Every entry's value (small ids first, in id order; then the others, in insertion order). */
  *values(): IterableIterator<T> {
    for (const v of this.dense) if (v !== undefined) yield v;
    yield* this.sparse.values();
  }

  clear(): void {
    this.dense.length = 0;
    this.sparse.clear();
  }
}
