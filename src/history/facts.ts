/**
 * OpFacts: one op's fields, read once into an object whose shape never changes.
 *
 * Why: ops parsed from JSON come in a dozen shapes (an acquire invoke has no grant, a write ok
 * has `accepted`, …), so every `op.f` in code that sees all of them is a slow, megamorphic
 * property lookup. On the one-pass path (`lockcheck check` on a million-op file) the reader
 * fills one OpFacts per op while it parses, and the validator and every checker read that
 * instead of the op. The object is reused for the next op: copy the fields you need later,
 * never keep the OpFacts itself.
 */
import { type ClientId, type GrantId, isNemesisOp, type Op, type OpF, type OpType } from "./op.js";

export interface OpFacts {
  /**
   * The op these facts were read from; undefined on the one-pass path, whose scanner
   * (scan.ts) reads the fields without building the op.
   */
  op: Op | undefined;
  index: number;
  time: number;
  /** The client's id (a non-negative integer or a string), or NEMESIS (-1) for the nemesis. */
  process: ClientId;
  type: OpType;
  f: OpF;
  /** The lock a client op names; "" for nemesis ops. */
  lock: string;
  grant: GrantId | undefined;
  token: bigint | undefined;
  accepted: boolean | undefined;
  /** A write completion's resource apply order (WriteOp.seq); undefined otherwise. */
  seq: bigint | undefined;
  /** An acquire's lease time asked for (AcquireOp.ttlMs); undefined otherwise. */
  ttlMs: number | undefined;
  /** What a nemesis op hit ("client:1"); undefined for client ops. */
  node: string | undefined;
}

/** OpFacts.process of a nemesis op: no client id is negative. */
export const NEMESIS = -1;

/** A fresh OpFacts to fill (placeholder values; every field is overwritten by the fillers). */
export function emptyOpFacts(): OpFacts {
  return {
    op: undefined,
    index: 0,
    time: 0,
    process: -1,
    type: "invoke",
    f: "pause",
    lock: "",
    grant: undefined,
    token: undefined,
    accepted: undefined,
    seq: undefined,
    ttlMs: undefined,
    node: undefined,
  };
}

/** Fills `facts` from `op` (the path for ops that did not come from the reader); returns it. */
export function factsOf(op: Op, facts: OpFacts): OpFacts {
  facts.op = op;
  facts.index = op.index;
  facts.time = op.time;
  facts.type = op.type;
  facts.f = op.f;
  if (isNemesisOp(op)) {
    facts.process = NEMESIS;
    facts.lock = "";
    facts.grant = undefined;
    facts.token = undefined;
    facts.accepted = undefined;
    facts.seq = undefined;
    facts.ttlMs = undefined;
    facts.node = op.node;
  } else {
    facts.process = op.process;
    facts.lock = op.lock;
    facts.grant = op.grant;
    facts.token = op.f === "release" ? undefined : op.token;
    facts.accepted = op.f === "write" ? op.accepted : undefined;
    facts.seq = op.f === "write" ? op.seq : undefined;
    facts.ttlMs = op.f === "acquire" ? op.ttlMs : undefined;
    facts.node = undefined;
  }
  return facts;
}
