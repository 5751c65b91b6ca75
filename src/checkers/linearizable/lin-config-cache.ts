/**
 * The linearizability search's memory of where it has been: the set of linearized ops
 * (`OpSet`) and the cache of (linearized set, model state) configurations already explored
 * (`ConfigCache`). Used by checkers/linearizable/linearizable.ts.
 */
import type { LinOp } from "./models/model.js";

/**
 * The set of linearized ops as a bitset, laid out so that it can be stored compactly. Ops with
 * a known return take the first bits, in order of return; ops that may never happen take the
 * bits after them. Every op returning before the earliest unlinearized one is linearized, and
 * the others linearized so far were called before that return, so the first section is all
 * ones up to word `low`, then a few words of mixed bits up to `high`, then zeros. The cache
 * stores words [low, high) of the first section and words [pendingStart, pendingHigh) of the
 * second: the same set always gives the same words, and their number grows with how many ops
 * overlap, not with the length of the history.
 */
export class OpSet {
  readonly words: Uint32Array;
  /** Op → bit number. */
  private readonly bitOf: Int32Array;
  /** Words [0, definiteWords) hold ops with a known return; [definiteWords, …) the others. */
  readonly definiteWords: number;
  /** First word of the first section that is not all ones. */
  low = 0;
  /** One past the last non-zero word of the first section (≥ low when meaningful). */
  high = 0;
  /** One past the last non-zero word of the second section (≥ definiteWords). */
  pendingHigh: number;

  constructor(ops: readonly LinOp<unknown, unknown>[], position: Int32Array) {
    const n = ops.length;
    const definite: number[] = [];
    const pending: number[] = [];
    for (let i = 0; i < n; i++)
      (Number.isFinite((ops[i] as LinOp<unknown, unknown>).ret) ? definite : pending).push(i);
    definite.sort((a, b) => (position[2 * a + 1] as number) - (position[2 * b + 1] as number));
    pending.sort((a, b) => (position[2 * a] as number) - (position[2 * b] as number));
    this.definiteWords = (definite.length + 31) >>> 5;
    this.pendingHigh = this.definiteWords;
    this.bitOf = new Int32Array(n);
    definite.forEach((op, k) => {
      this.bitOf[op] = k;
    });
    pending.forEach((op, k) => {
      this.bitOf[op] = this.definiteWords * 32 + k;
    });
    this.words = new Uint32Array(this.definiteWords + ((pending.length + 31) >>> 5));
  }

  has(op: number): boolean {
    const b = this.bitOf[op] as number;
    return ((this.words[b >>> 5] as number) & (1 << (b & 31))) !== 0;
  }

  add(op: number): void {
    const b = this.bitOf[op] as number;
    const w = b >>> 5;
    const words = this.words;
    words[w] = (words[w] as number) | (1 << (b & 31));
    if (w < this.definiteWords) {
      if (w === this.low) {
        while (this.low < this.definiteWords && words[this.low] === 0xffffffff) this.low++;
      }
      if (w >= this.high) this.high = w + 1;
    } else if (w >= this.pendingHigh) this.pendingHigh = w + 1;
  }

  remove(op: number): void {
    const b = this.bitOf[op] as number;
    const w = b >>> 5;
    const words = this.words;
    words[w] = (words[w] as number) & ~(1 << (b & 31));
    if (w < this.definiteWords) {
      if (w < this.low) this.low = w;
      if (w === this.high - 1) {
        while (this.high > 0 && words[this.high - 1] === 0) this.high--;
      }
    } else if (w === this.pendingHigh - 1) {
      while (this.pendingHigh > this.definiteWords && words[this.pendingHigh - 1] === 0) this.pendingHigh--;
    }
  }

  /** Words of the first section stored: [low, max(low, high)). */
  get definiteSpan(): number {
    return Math.max(0, this.high - this.low);
  }

  /** What the cache stores for this set: low, the first section's words, then the second's. */
  compact(): number[] {
    return [
      this.low,
      ...this.words.subarray(this.low, this.low + this.definiteSpan),
      -1,
      ...this.words.subarray(this.definiteWords, this.pendingHigh),
    ];
  }
}

/**
 * A set of (linearized set, model state) configurations: open addressing with linear probing
 * over typed arrays. The caller passes the set's 64-bit hash, kept incrementally; each entry
 * stores the set's compact words (see OpSet) in a growing arena, to confirm a hash match.
 */
export class ConfigCache {
  size = 0;
  private capacity = 256;
  private hashA = new Int32Array(this.capacity);
  private hashB = new Int32Array(this.capacity);
  private state = new Int32Array(this.capacity);
  /** Per entry: where its words start in the arena, the set's `low`, and the two spans. */
  private offset = new Int32Array(this.capacity);
  private low = new Int32Array(this.capacity);
  private span = new Int32Array(this.capacity);
  private pendingSpan = new Int32Array(this.capacity);
  private arena = new Uint32Array(1024);
  private arenaUsed = 0;
  /** Slot → entry number + 1; 0 is empty. */
  private table = new Int32Array(512);
  private mask = 511;

  bytes(): number {
    return this.capacity * 28 + this.arena.length * 4 + this.table.length * 4;
  }

  /** Adds the configuration; false if it was already present. */
  add(a: number, b: number, state: number, set: OpSet): boolean {
    const words = set.words;
    const low = set.low;
    const span = set.definiteSpan;
    const pendingStart = set.definiteWords;
    const pendingSpan = set.pendingHigh - pendingStart;
    let slot = (a ^ Math.imul(state, 0x9e3779b1)) & this.mask;
    for (;;) {
      const e = this.table[slot] as number;
      if (e === 0) break;
      const i = e - 1;
      if (
        this.hashA[i] === a &&
        this.hashB[i] === b &&
        this.state[i] === state &&
        this.low[i] === low &&
        this.span[i] === span &&
        this.pendingSpan[i] === pendingSpan
      ) {
        let at = this.offset[i] as number;
        let same = true;
        for (let w = 0; w < span && same; w++) same = this.arena[at++] === words[low + w];
        for (let w = 0; w < pendingSpan && same; w++) same = this.arena[at++] === words[pendingStart + w];
        if (same) return false;
      }
      slot = (slot + 1) & this.mask;
    }
    if (this.size === this.capacity) this.growEntries();
    if (this.arenaUsed + span + pendingSpan > this.arena.length) this.growArena(span + pendingSpan);
    const i = this.size++;
    this.hashA[i] = a;
    this.hashB[i] = b;
    this.state[i] = state;
    this.low[i] = low;
    this.span[i] = span;
    this.pendingSpan[i] = pendingSpan;
    this.offset[i] = this.arenaUsed;
    for (let w = 0; w < span; w++) this.arena[this.arenaUsed++] = words[low + w] as number;
    for (let w = 0; w < pendingSpan; w++) this.arena[this.arenaUsed++] = words[pendingStart + w] as number;
    this.table[slot] = i + 1;
    if (this.size * 2 > this.table.length) this.growTable();
    return true;
  }

  private growEntries(): void {
    const capacity = this.capacity * 2;
    const grow = (old: Int32Array): Int32Array<ArrayBuffer> => {
      const fresh = new Int32Array(capacity);
      fresh.set(old);
      return fresh;
    };
    this.hashA = grow(this.hashA);
    this.hashB = grow(this.hashB);
    this.state = grow(this.state);
    this.offset = grow(this.offset);
    this.low = grow(this.low);
    this.span = grow(this.span);
    this.pendingSpan = grow(this.pendingSpan);
    this.capacity = capacity;
  }

  private growArena(need: number): void {
    const arena = new Uint32Array(Math.max(this.arena.length * 2, this.arenaUsed + need));
    arena.set(this.arena.subarray(0, this.arenaUsed));
    this.arena = arena;
  }

  private growTable(): void {
    const table = new Int32Array(this.table.length * 2);
    const mask = table.length - 1;
    for (let i = 0; i < this.size; i++) {
      let slot = ((this.hashA[i] as number) ^ Math.imul(this.state[i] as number, 0x9e3779b1)) & mask;
      while (table[slot] !== 0) slot = (slot + 1) & mask;
      table[slot] = i + 1;
    }
    this.table = table;
    this.mask = mask;
  }
}
