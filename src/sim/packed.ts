/**
 * `xs.map(f)` that always makes a packed array. Optimized code inlines Array.prototype.map
 * with a holey result, while the builtin (interpreted callers) makes a packed one, so a world
 * built after its builder was optimized had arrays of another elements kind than the worlds
 * before it: every function optimized on the earlier kind deoptimized ("wrong map") and was
 * compiled again. On sim:consensus that came in bursts of up to 30 functions, hundreds of
 * schedules after start-up (`--trace-deopt-verbose`: all at reads of `members`, `channels`,
 * `watches`), and recompiling took 448 ms of CPU in the 600 schedules after the bench's 1,000
 * warm-up ones. (The leader's per-member arrays had the same trouble earlier: there it made
 * the leader's code recompile about every 20 schedules.)
 */
export function mapPacked<T, U>(xs: readonly T[], f: (x: T, i: number) => U): U[] {
  const out: U[] = [];
  for (let i = 0; i < xs.length; i++) out.push(f(xs[i]!, i));
  return out;
}
