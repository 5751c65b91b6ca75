/**
 * `fuzz --shard i/n`: a campaign of `runs` schedules split into n contiguous ranges of run
 * indices. Run index k's schedule depends only on the seed and k, so shard i tries exactly
 * the runs the unsharded campaign tries in its range, and the lowest failing run over all
 * shards is the one the unsharded campaign finds (`lockcheck merge` picks it).
 */
import type { Shard } from "../report/gate-result.js";

export interface RunRange {
  /** 0-based index of the range's first run. */
  from: number;
  /** 0-based index one past its last run. */
  to: number;
}

export function shardRange(shard: Shard, runs: number): RunRange {
  return {
    from: Math.floor(((shard.index - 1) * runs) / shard.count),
    to: Math.floor((shard.index * runs) / shard.count),
  };
}
