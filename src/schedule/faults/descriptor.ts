/**
 * What lockcheck knows about one fault kind, apart from how a world applies it: its schema,
 * its weight for the shrinker, its smaller variants, the timing perturbations a margin must
 * survive, the client it is aimed at, and how its start shows in a history. Each kind has
 * one file in this folder exporting its descriptor; `index.ts` maps kind → descriptor.
 */
import type { z } from "zod";
import type { Fault, FaultKind, NodeRef } from "../schedule.js";

/** The fault of kind `K`. */
export type FaultOf<K extends FaultKind> = Extract<Fault, { kind: K }>;

/** A nemesis start as recorded in a history: its op name, node and value fields. */
export interface RecordedStart {
  f: string;
  node?: string | undefined;
  value: Record<string, unknown>;
}

/** How the faults' client references change when a client is dropped or renamed. */
export interface ClientRemap {
  /** A node after the change; null if it named the dropped client. */
  node(ref: NodeRef): NodeRef | null;
  /** A client id after the change; null if it is the dropped client. */
  client(id: number): number | null;
}

export interface FaultDescriptor<K extends FaultKind> {
  kind: K;
  /** One line for people: what the fault does. */
  description: string;
  schema: z.ZodType<FaultOf<K>>;
  /**
   * The fault's contribution to a schedule's weight (ms, ‰ of drift, nodes × 1000): the
   * shrinker only moves to strictly lighter schedules.
   */
  magnitude(f: FaultOf<K>): number;
  /** Each smaller variant of the fault, in the order the shrinker tries them. */
  smaller(f: FaultOf<K>): Iterable<FaultOf<K>>;
  /**
   * The variants a timing margin `m` must survive (robust-failure.ts), the weaker effect first
   * (that one is also applied to all faults at once).
   */
  perturbed(f: FaultOf<K>, m: number): FaultOf<K>[];
  /** The fault with its client references remapped; null if it no longer applies. */
  remapClients(f: FaultOf<K>, remap: ClientRemap): FaultOf<K> | null;
  /**
   * The fault fitted to a schedule of `clients` clients (src/generators/fit.ts): client numbers
   * beyond them fold onto existing ones; null if it is left meaningless (a partition with an
   * empty side, a delay from a node to itself).
   */
  fit(f: FaultOf<K>, clients: number): FaultOf<K> | null;
  /** How long the fault stays in effect once started (0: an instant; Infinity: for good). */
  effectMs(f: FaultOf<K>): number;
  /** The nodes the fault acts on (both ends of the links it affects). */
  nodes(f: FaultOf<K>): NodeRef[];
  /** The client the fault is aimed at, if it is aimed at one client. */
  targetClient(f: FaultOf<K>): number | undefined;
  /**
   * A pause of a client or server (`durationMs` is how long it is frozen): the shrinker
   * offers it twice as long when dropping a client or fault.
   */
  pause: boolean;
  /** Margins widening (robust-failure.ts) lengthens its `durationMs` past the lease. */
  widenable: boolean;
  /** Fires at the client's n-th checkpoint or call (`occurrence`), not at a time. */
  counted: boolean;
  /**
   * Nemesis op names of the fault's start and end in a history (`end` null: the start is
   * all there is, or its end depends on the fault, as a crash's restart).
   */
  timeline: { start: string; end: string | null };
  /**
   * Whether a recorded nemesis start is this fault's start and it had an effect (false: it
   * started but changed nothing); undefined: not its start. Absent: the history cannot tell,
   * and the fault counts as fired (fired-faults.ts).
   */
  startedBy?(f: FaultOf<K>, start: RecordedStart): boolean | undefined;
}

/** Every descriptor, one per kind: a kind without one is a type error. */
export type FaultDescriptors = { [K in FaultKind]: FaultDescriptor<K> };
