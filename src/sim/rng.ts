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
import { mapPacked } from "./packed.js";

export type Random = () => number;

export interface RandomStreams {
  /** The stream named `purpose`, created on first use. */
  stream(purpose: string): Random;
  /** `stream` for each of `purposes`, those not made yet seeded together (`aleaMany`): faster. */
  streams(purposes: readonly string[]): Random[];
}

export function createRandomStreams(seed: number): RandomStreams {
  const made = new Map<string, Random>();
  return {
    stream(purpose) {
      let s = made.get(purpose);
      if (s === undefined) {
        s = alea(`${seed}/${purpose}`);
        made.set(purpose, s);
      }
      return s;
    },
    streams(purposes) {
      const missing = [...new Set(purposes)].filter((p) => !made.has(p));
      const fresh = aleaMany(mapPacked(missing, (p) => `${seed}/${p}`));
      for (let i = 0; i < missing.length; i++) made.set(missing[i]!, fresh[i]!);
      return mapPacked(purposes, (p) => made.get(p)!);
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
  const n1 = mashInto(N3, seed);
  const n2 = mashInto(n1, seed);
  return aleaFromMash(n1, n2, mashInto(n2, seed));
}

/**
 * `alea` for each of `seeds`, the same numbers, about three times faster: Mash is a chain of
 * dependent floating-point steps, so hashing four seeds of one length side by side lets the
 * processor overlap them. A run seeds a stream per network link, and for short runs (fuzzing)
 * that was a tenth of the time.
 */
export function aleaMany(seeds: readonly string[]): Random[] {
  const out = new Array<Random>(seeds.length);
  const byLength = new Map<number, number[]>();
  seeds.forEach((s, i) => {
    const group = byLength.get(s.length);
    if (group === undefined) byLength.set(s.length, [i]);
    else group.push(i);
  });
  const n = new Float64Array(4);
  const first = new Float64Array(4);
  const second = new Float64Array(4);
  for (const group of byLength.values()) {
    let k = 0;
    for (; k + 4 <= group.length; k += 4) {
      const a = seeds[group[k]!]!;
      const b = seeds[group[k + 1]!]!;
      const c = seeds[group[k + 2]!]!;
      const d = seeds[group[k + 3]!]!;
      n.fill(N3);
      mash4Into(n, a, b, c, d);
      first.set(n);
      mash4Into(n, a, b, c, d);
      second.set(n);
      mash4Into(n, a, b, c, d);
      for (let j = 0; j < 4; j++) out[group[k + j]!] = aleaFromMash(first[j]!, second[j]!, n[j]!);
    }
    for (; k < group.length; k++) out[group[k]!] = alea(seeds[group[k]!]!);
  }
  return out;
}

/** `mashInto` for four strings of one length at once, on the states in `n`. */
function mash4Into(n: Float64Array, a: string, b: string, c: string, d: string): void {
  let na = n[0]!;
  let nb = n[1]!;
  let nc = n[2]!;
  let nd = n[3]!;
  for (let i = 0; i < a.length; i++) {
    na += a.charCodeAt(i);
    nb += b.charCodeAt(i);
    nc += c.charCodeAt(i);
    nd += d.charCodeAt(i);
    let ha = 0.02519603282416938 * na;
    let hb = 0.02519603282416938 * nb;
    let hc = 0.02519603282416938 * nc;
    let hd = 0.02519603282416938 * nd;
    na = ha >>> 0;
    nb = hb >>> 0;
    nc = hc >>> 0;
    nd = hd >>> 0;
    ha -= na;
    hb -= nb;
    hc -= nc;
    hd -= nd;
    ha *= na;
    hb *= nb;
    hc *= nc;
    hd *= nd;
    na = ha >>> 0;
    nb = hb >>> 0;
    nc = hc >>> 0;
    nd = hd >>> 0;
    ha -= na;
    hb -= nb;
    hc -= nc;
    hd -= nd;
    na += ha * 0x100000000;
    nb += hb * 0x100000000;
    nc += hc * 0x100000000;
    nd += hd * 0x100000000;
  }
  n[0] = na;
  n[1] = nb;
  n[2] = nc;
  n[3] = nd;
}

/** The stream whose seed hashed to the Mash states `n1`, `n2`, `n3` (after each pass). */
function aleaFromMash(n1: number, n2: number, n3: number): Random {
  let s0 = S0 - hashOf(n1);
  if (s0 < 0) s0 += 1;
  let s1 = S1 - hashOf(n2);
  if (s1 < 0) s1 += 1;
  let s2 = S2 - hashOf(n3);
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
