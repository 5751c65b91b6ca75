/**
 * Seeded random streams. Everything random in a run is drawn from the schedule's seed, split
 * into independent named streams ("latency:client:0>server:1", "election:server:2", …) so that
 * removing a client or a fault while shrinking does not shift the numbers every other part of
 * the world draws: the remaining links keep their latencies.
 *
 * Each stream is Johannes Baagøe's Alea generator seeded with the string `${seed}/${purpose}`,
 * computing exactly the numbers seedrandom's `alea(seed)` does (test/sim/rng.test.ts compares
 * them). It is written out here because a run seeds dozens of streams (one per link) and
 * seedrandom builds several closures per stream and keeps the state where every draw boxes a
 * number; here a stream is one object with number fields, and the seeding work that does not
 * depend on the seed (three hashes of " ") is done once. Alea uses only exact integer and
 * double arithmetic, so streams are identical on any machine.
 */

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
        s = alea(`${seed}/${purpose}`);
        streams.set(purpose, s);
      }
      return s;
    },
  };
}

const TWO_POW_MINUS_32 = 2.3283064365386963e-10;

/** Baagøe's Mash hash: folds `data` into the running state `n`; returns the new state. */
function mashInto(n: number, data: string): number {
  for (let i = 0; i < data.length; i++) {
    n += data.charCodeAt(i);
    let h = 0.02519603282416938 * n;
    n = h >>> 0;
    h -= n;
    h *= n;
    n = h >>> 0;
    h -= n;
    n += h * 0x100000000;
  }
  return n;
}

const hashOf = (n: number): number => (n >>> 0) * TWO_POW_MINUS_32;

/** The seed-independent start of Alea's seeding: three hashes of " " from Mash's initial state. */
const MASH_START = 0xefc8249d;
const N1 = mashInto(MASH_START, " ");
const N2 = mashInto(N1, " ");
const N3 = mashInto(N2, " ");
const S0 = hashOf(N1);
const S1 = hashOf(N2);
const S2 = hashOf(N3);

class AleaState {
  s0: number;
  s1: number;
  s2: number;
  c: number;
  constructor(s0: number, s1: number, s2: number) {
    this.s0 = s0;
    this.s1 = s1;
    this.s2 = s2;
    this.c = 1;
  }
}

/** An Alea stream seeded with `seed`: the numbers of seedrandom's `alea(seed)()`. */
export function alea(seed: string): Random {
  let n = mashInto(N3, seed);
  let s0 = S0 - hashOf(n);
  if (s0 < 0) s0 += 1;
  n = mashInto(n, seed);
  let s1 = S1 - hashOf(n);
  if (s1 < 0) s1 += 1;
  n = mashInto(n, seed);
  let s2 = S2 - hashOf(n);
  if (s2 < 0) s2 += 1;
  const st = new AleaState(s0, s1, s2);
  return () => {
    const t = 2091639 * st.s0 + st.c * TWO_POW_MINUS_32;
    st.s0 = st.s1;
    st.s1 = st.s2;
    st.c = t | 0;
    st.s2 = t - st.c;
    return st.s2;
  };
}
