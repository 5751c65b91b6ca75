/**
 * Seeded random streams. Everything random in a run is drawn from the schedule's seed, split
 * into independent named streams ("latency:client:0>server:1", "election:server:2", …) so that
 * removing a client or a fault while shrinking does not shift the numbers every other part of
 * the world draws: the remaining links keep their latencies.
 *
 * The generator is Alea (Johannes Baagøe's, seeded through his Mash string hash), the one the
 * seedrandom package calls `alea`: it uses only exact integer and double arithmetic, so streams
 * are identical on any machine, and test/sim/rng.test.ts pins them to seedrandom's, number for
 * number. It is computed here because a world seeds one stream per link (some sixty for five
 * clients and five servers), and seedrandom's seeding builds several closures per stream: it
 * cost more than a short run's whole network.
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

/** 2^-32 */
const INV_2_32 = 2.3283064365386963e-10;

/** Mash's running state: a double that holds a 32-bit integer plus a fraction. */
interface MashState {
  n: number;
}

/** Hashes `text` into the state; a fraction in [0, 1) from the state's integer part. */
function mash(state: MashState, text: string): number {
  let n = state.n;
  for (let i = 0; i < text.length; i++) {
    n += text.charCodeAt(i);
    let h = 0.02519603282416938 * n;
    n = h >>> 0;
    h -= n;
    h *= n;
    n = h >>> 0;
    h -= n;
    n += h * 0x100000000;
  }
  state.n = n;
  return (n >>> 0) * INV_2_32;
}

/** Alea seeded with `seed`: a multiply-with-carry over three lags, doubles in [0, 1). */
export function alea(seed: string): Random {
  const m: MashState = { n: 0xefc8249d };
  let s0 = mash(m, " ");
  let s1 = mash(m, " ");
  let s2 = mash(m, " ");
  let c = 1;
  s0 -= mash(m, seed);
  if (s0 < 0) s0 += 1;
  s1 -= mash(m, seed);
  if (s1 < 0) s1 += 1;
  s2 -= mash(m, seed);
  if (s2 < 0) s2 += 1;
  return () => {
    const t = 2091639 * s0 + c * INV_2_32;
    s0 = s1;
    s1 = s2;
    c = t | 0;
    s2 = t - c;
    return s2;
  };
}
