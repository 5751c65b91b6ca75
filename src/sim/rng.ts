/**
 * Seeded random streams. Everything random in a run is drawn from the schedule's seed, split
 * into independent named streams ("latency:client:0>server:1", "election:server:2", …) so that
 * removing a client or a fault while shrinking does not shift the numbers every other part of
 * the world draws: the remaining links keep their latencies. Alea (from seedrandom) is fast
 * and uses only exact integer and double arithmetic, so streams are identical on any machine.
 */
import seedrandom from "seedrandom";

export type Random = () => number;

export interface RandomStreams {
  /** The stream named `purpose`, created on first use. */
  stream(purpose: string): Random;
}

export function createRandomStreams(seed: number): RandomStreams {
  const streams = new Map<string, Random>();
  return {
    stream(purpose) {
      let s = streams.get(purpose);
      if (s === undefined) {
        s = seedrandom.alea(`${seed}/${purpose}`);
        streams.set(purpose, s);
      }
      return s;
    },
  };
}
