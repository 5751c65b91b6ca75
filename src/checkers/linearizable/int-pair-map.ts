/**
 * A hash map from pairs of 32-bit integers to non-negative 32-bit integers, over typed arrays.
 * The linearizability search and its models look up small-integer keys millions of times; a
 * JavaScript Map keyed by a combined number allocates and hashes heap numbers, this does not.
 */
export class IntPairMap {
  private keysA: Int32Array;
  private keysB: Int32Array;
  /** Value + 1; 0 marks an empty slot. */
  private values: Int32Array;
  private mask: number;
  size = 0;

  constructor(initialCapacity = 1024) {
    let cap = 16;
    while (cap < initialCapacity * 2) cap *= 2;
    this.keysA = new Int32Array(cap);
    this.keysB = new Int32Array(cap);
    this.values = new Int32Array(cap);
    this.mask = cap - 1;
  }

  /** The value stored for (a, b), or -1. */
  get(a: number, b: number): number {
    let slot = slotOf(a, b) & this.mask;
    for (;;) {
      const v = this.values[slot] as number;
      if (v === 0) return -1;
      if (this.keysA[slot] === a && this.keysB[slot] === b) return v - 1;
      slot = (slot + 1) & this.mask;
    }
  }

  /** Stores `value` (≥ 0) for (a, b), replacing any earlier value. */
  set(a: number, b: number, value: number): void {
    let slot = slotOf(a, b) & this.mask;
    for (;;) {
      const v = this.values[slot] as number;
      if (v === 0) break;
      if (this.keysA[slot] === a && this.keysB[slot] === b) {
        this.values[slot] = value + 1;
        return;
      }
      slot = (slot + 1) & this.mask;
    }
    this.keysA[slot] = a;
    this.keysB[slot] = b;
    this.values[slot] = value + 1;
    this.size++;
    if (this.size * 2 > this.values.length) this.grow();
  }

  bytes(): number {
    return this.values.length * 12;
  }

  private grow(): void {
    const { keysA, keysB, values } = this;
    const cap = values.length * 2;
    this.keysA = new Int32Array(cap);
    this.keysB = new Int32Array(cap);
    this.values = new Int32Array(cap);
    this.mask = cap - 1;
    for (let i = 0; i < values.length; i++) {
      const v = values[i] as number;
      if (v === 0) continue;
      const a = keysA[i] as number;
      const b = keysB[i] as number;
      let slot = slotOf(a, b) & this.mask;
      while (this.values[slot] !== 0) slot = (slot + 1) & this.mask;
      this.keysA[slot] = a;
      this.keysB[slot] = b;
      this.values[slot] = v;
    }
  }
}

function slotOf(a: number, b: number): number {
  let h = Math.imul(a, 0x9e3779b1) ^ Math.imul(b ^ (b >>> 15), 0x85ebca6b);
  h ^= h >>> 16;
  return h;
}
