/**
 * How a parallel search splits the seed's run indices into blocks, and what it knows so far.
 *
 * Run index i's schedule is a pure function of (seed, i) (fast-check's replay path), so
 * workers can take any block [start, start + count) in any order. Blocks are handed out in
 * index order; a block ends early at its first failing run. The search is decided once a
 * failure is known and every index below it is known to pass: that failure is the lowest,
 * the one a sequential search would have found, whatever the number of workers.
 *
 * A block starts where the seed's generators are at its first index (run-position.ts: the
 * coordinator walks them once, in index order), so a block costs the same wherever it starts.
 * Blocks still grow with their index, to about i/8 runs: each costs a message round trip and
 * a fast-check set-up, and a campaign's early blocks are short so that a violation in its
 * first runs is found, and the search decided, soon. Towards the end of a campaign bounded by
 * runs they shrink again, to at most half the runs left per searcher, so that no searcher sits
 * idle while another finishes a long last block (but not below MIN_TAIL_BLOCK).
 */

export interface Block {
  start: number;
  count: number;
}

const MIN_BLOCK = 8;
/** Tail blocks stay this long (a few ms of runs): shorter ones would cost more in messages than they balance. */
const MIN_TAIL_BLOCK = 64;
/** Bounds how long one block runs (and how much a block over a known failure wastes). */
const MAX_BLOCK = 50_000;

/** The size of the block that starts at run index `start` (before clipping to the campaign's end). */
export function blockSize(start: number): number {
  return Math.min(MAX_BLOCK, Math.max(MIN_BLOCK, Math.floor(start / 8)));
}

interface BlockState {
  start: number;
  count: number;
  /** Runs of this block known to pass, from its start. */
  passed: number;
  /** Index of its failing run, if it had one. */
  failedAt: number | null;
  finished: boolean;
}

export class SearchFrontier {
  /** Dispatched blocks in index order. */
  private readonly blocks: BlockState[] = [];
  private nextStart: number;
  private lowest: number | null = null;

  /**
   * Indices `from` (inclusive) to `end` (exclusive; Infinity for a search bounded by time),
   * searched by `searchers` threads at once.
   */
  constructor(
    private readonly from: number,
    private readonly end: number,
    private readonly searchers = 1,
  ) {
    this.nextStart = from;
  }

  /** The next block to run, or null when nothing useful is left to hand out. */
  next(): Block | null {
    if (this.nextStart >= this.end) return null;
    if (this.lowest !== null && this.nextStart > this.lowest) return null;
    const start = this.nextStart;
    const left = this.end - start;
    const tail = Math.max(MIN_TAIL_BLOCK, Math.ceil(left / (2 * this.searchers)));
    const count = Math.min(blockSize(start), left, tail);
    this.blocks.push({ start, count, passed: 0, failedAt: null, finished: false });
    this.nextStart = start + count;
    return { start, count };
  }

  /** `passed` runs of the block at `start` passed (a running count from the block's start). */
  progress(start: number, passed: number): void {
    const b = this.find(start);
    b.passed = Math.max(b.passed, passed);
  }

  /** The block at `start` finished: every run passed, or the run at `failedAt` failed. */
  finish(start: number, failedAt: number | null): void {
    const b = this.find(start);
    b.finished = true;
    if (failedAt === null) b.passed = b.count;
    else {
      b.passed = failedAt - start;
      b.failedAt = failedAt;
      if (this.lowest === null || failedAt < this.lowest) this.lowest = failedAt;
    }
  }

  /** The lowest failing index known so far. */
  lowestFailure(): number | null {
    return this.lowest;
  }

  /** How many indices from `from` are known to pass, without a gap. */
  passedPrefix(): number {
    let n = 0;
    for (const b of this.blocks) {
      n += b.passed;
      if (!b.finished || b.failedAt !== null) break;
    }
    return n;
  }

  /** Runs that passed, in all blocks (with gaps). */
  passedTotal(): number {
    return this.blocks.reduce((n, b) => n + b.passed, 0);
  }

  /** Runs not yet known to pass or fail (Infinity for a search bounded by time). */
  remaining(): number {
    return this.end - this.from - this.passedTotal();
  }

  /** True when a failure is known and every index below it passed. */
  decided(): boolean {
    return this.lowest !== null && this.from + this.passedPrefix() >= this.lowest;
  }

  /** True when every index up to `end` ran and none failed. */
  exhausted(): boolean {
    return this.lowest === null && this.from + this.passedPrefix() >= this.end;
  }

  /** Whether a block is still worth running (it could hold a failure lower than the known one). */
  useful(start: number): boolean {
    return this.lowest === null || start < this.lowest;
  }

  private find(start: number): BlockState {
    const b = this.blocks.find((x) => x.start === start);
    if (b === undefined) throw new RangeError(`SearchFrontier: no block starts at ${start}`);
    return b;
  }
}
