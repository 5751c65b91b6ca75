/**
 * A fast path for reading the lines lockcheck itself writes (serialize.ts): a scanner that
 * fills an OpFacts straight from the line's UTF-8 bytes, without decoding the line, without
 * JSON.parse and without building the op object. It exists for `lockcheck check` on
 * million-op files, where decoding, JSON.parse and reading fields off a dozen object shapes
 * were most of the cost.
 *
 * The contract is narrow on purpose: `scanOpLine` either fills `facts` with exactly what
 * parseOpLineInto (parse.ts) would fill for the same line, or declines (returns false) and
 * changes nothing the caller relies on; the caller then decodes the line and takes the
 * JSON.parse path, which also produces the error messages. It accepts only a flat object with
 * no whitespace (as JSON.stringify writes it), the known keys each at most once, ASCII
 * strings without escapes or control characters, safe integers (or a token string of
 * digits), and true/false/null. Anything else (nested `value`s, unknown keys,
 * non-ASCII text, a field that parse.ts would reject, …) is declined.
 * test/history/scan.test.ts checks the equivalence.
 *
 * Strings that repeat from line to line (the lock name, a holder's grant id, its token) are
 * compared in place against the previous ones and reused, so they are not allocated again
 * and later comparisons are between identical strings.
 */
import type { OpFacts } from "./facts.js";
import { NEMESIS_FS, type OpF, type OpType } from "./op.js";

const NEMESIS_F_SET = new Set<string>(NEMESIS_FS);

// Byte values.
const QUOTE = 34;
const BACKSLASH = 92;
const COMMA = 44;
const COLON = 58;
const OPEN = 123;
const CLOSE = 125;
const MINUS = 45;
const ZERO = 48;
const NINE = 57;
const ASCII_END = 128;

// Value kinds a scan can find.
const STRING = 1;
const INTEGER = 2;
const TRUE = 3;
const FALSE = 4;
const NULL = 5;

const MEMORY_SLOTS = 0xffff;

/** Per-reader memory of strings seen on earlier lines (see the top of this file). */
export interface ScanMemory {
  lock: string;
  /** By client process number (below MEMORY_SLOTS): its last grant id, token text and token. */
  grant: string[];
  tokenText: string[];
  token: bigint[];
}

export function createScanMemory(): ScanMemory {
  return { lock: "", grant: [], tokenText: [], token: [] };
}

// Where the last value scanned starts and ends (exclusive), and what it is: module state, so
// that nothing is allocated per value. `integer` stays a small integer or a double in a
// Float64Array slot, never a fresh heap number.
let valueStart = 0;
let valueEnd = 0;
let valueKind = 0;
const integer = new Float64Array(1);

/** Index of the quote closing the string that opens at `start`, or -1 if it needs JSON.parse. */
function stringEnd(b: Uint8Array, start: number, end: number): number {
  for (let i = start + 1; i < end; i++) {
    const c = b[i]!;
    if (c === QUOTE) return i;
    if (c === BACKSLASH || c < 32 || c >= ASCII_END) return -1;
  }
  return -1;
}

/** True if b[start, end) holds exactly the ASCII text `text`. */
function bytesAre(b: Uint8Array, start: number, end: number, text: string): boolean {
  if (end - start !== text.length) return false;
  for (let i = 0; i < text.length; i++) if (b[start + i] !== text.charCodeAt(i)) return false;
  return true;
}

/** True if the bytes at `at` begin with the ASCII text `text` (within `end`). */
function startsWithText(b: Uint8Array, at: number, end: number, text: string): boolean {
  return at + text.length <= end && bytesAre(b, at, at + text.length, text);
}

/** Scans the value at `i` (line ends at `end`); returns the index after it, or -1 to decline. */
function scanValue(b: Uint8Array, i: number, end: number): number {
  const c = b[i];
  if (c === QUOTE) {
    const close = stringEnd(b, i, end);
    if (close < 0) return -1;
    valueKind = STRING;
    valueStart = i + 1;
    valueEnd = close;
    return close + 1;
  }
  if (c === MINUS || (c !== undefined && c >= ZERO && c <= NINE)) {
    const negative = c === MINUS;
    let j = negative ? i + 1 : i;
    const first = j;
    let v = 0;
    for (; j < end; j++) {
      const d = b[j]!;
      if (d < ZERO || d > NINE) break;
      v = v * 10 + (d - ZERO);
    }
    const digits = j - first;
    // No digits, a leading zero, beyond exact arithmetic, -0: JSON.parse's business. (Up to
    // 2^53 every step above is exact; a larger value stays larger after rounding.)
    if (digits === 0 || digits > 16 || v > Number.MAX_SAFE_INTEGER || (digits > 1 && b[first] === ZERO))
      return -1;
    if (negative && v === 0) return -1;
    valueKind = INTEGER;
    integer[0] = negative ? -v : v;
    valueStart = i;
    valueEnd = j;
    return j;
  }
  if (startsWithText(b, i, end, "true")) {
    valueKind = TRUE;
    return i + 4;
  }
  if (startsWithText(b, i, end, "false")) {
    valueKind = FALSE;
    return i + 5;
  }
  if (startsWithText(b, i, end, "null")) {
    valueKind = NULL;
    return i + 4;
  }
  return -1;
}

/** The ASCII string at b[start, end), reusing `known` when the text is the same. */
function text(b: Uint8Array, start: number, end: number, known: string | undefined): string {
  if (known !== undefined && bytesAre(b, start, end, known)) return known;
  // Short texts (grant ids, tokens, node names) are built directly: cheaper than a subarray.
  if (end - start > 32) return String.fromCharCode.apply(null, b.subarray(start, end) as unknown as number[]);
  let s = "";
  for (let i = start; i < end; i++) s += String.fromCharCode(b[i]!);
  return s;
}

function opType(b: Uint8Array): OpType | undefined {
  switch (valueEnd - valueStart) {
    case 6:
      return bytesAre(b, valueStart, valueEnd, "invoke") ? "invoke" : undefined;
    case 2:
      return bytesAre(b, valueStart, valueEnd, "ok") ? "ok" : undefined;
    case 4:
      if (bytesAre(b, valueStart, valueEnd, "fail")) return "fail";
      return bytesAre(b, valueStart, valueEnd, "info") ? "info" : undefined;
    default:
      return undefined;
  }
}

function clientF(b: Uint8Array, start: number, end: number): OpF | undefined {
  if (bytesAre(b, start, end, "write")) return "write";
  if (bytesAre(b, start, end, "acquire")) return "acquire";
  if (bytesAre(b, start, end, "release")) return "release";
  return undefined;
}

// Keys, as bits (a key seen twice is declined: JSON.parse would keep the last, and that is rare).
const K_INDEX = 1;
const K_TIME = 2;
const K_PROCESS = 4;
const K_TYPE = 8;
const K_F = 16;
const K_LOCK = 32;
const K_GRANT = 64;
const K_TOKEN = 128;
const K_ACCEPTED = 256;
const K_NODE = 512;
const K_VALUE = 1024;
const K_ERROR = 2048;
const K_SEQ = 4096;
const K_TTL = 8192;

/** Length of the key `keyAt` found last (module state, like the value's bounds). */
let keyLength = 0;

/**
 * The key whose opening quote is at `q`, if it is one of ours, quoted and followed by ":"
 * within the line (which ends at `end`); 0 otherwise. One pass over the key's bytes.
 */
function keyAt(b: Uint8Array, q: number, end: number): number {
  let key: number;
  let text: string;
  // The first letter (for "t", the second) tells which key it can be; the rest must match.
  switch (b[q + 1]) {
    case 105: // i
      key = K_INDEX;
      text = "index";
      break;
    case 116: // t
      switch (b[q + 2]) {
        case 105: // i
          key = K_TIME;
          text = "time";
          break;
        case 121: // y
          key = K_TYPE;
          text = "type";
          break;
        case 111: // o
          key = K_TOKEN;
          text = "token";
          break;
        case 116: // t
          key = K_TTL;
          text = "ttlMs";
          break;
        default:
          return 0;
      }
      break;
    case 112: // p
      key = K_PROCESS;
      text = "process";
      break;
    case 102: // f
      key = K_F;
      text = "f";
      break;
    case 108: // l
      key = K_LOCK;
      text = "lock";
      break;
    case 103: // g
      key = K_GRANT;
      text = "grant";
      break;
    case 97: // a
      key = K_ACCEPTED;
      text = "accepted";
      break;
    case 110: // n
      key = K_NODE;
      text = "node";
      break;
    case 118: // v
      key = K_VALUE;
      text = "value";
      break;
    case 101: // e
      key = K_ERROR;
      text = "error";
      break;
    case 115: // s
      key = K_SEQ;
      text = "seq";
      break;
    default:
      return 0;
  }
  const close = q + 1 + text.length;
  if (close + 1 >= end || b[close] !== QUOTE || b[close + 1] !== COLON) return 0;
  if (!bytesAre(b, q + 1, close, text)) return 0;
  keyLength = text.length;
  return key;
}

/**
 * Fills `facts` from the line b[start, end) (no newline) if it is in the shape described at
 * the top of this file and parse.ts would accept it; returns false (declines) otherwise.
 * `facts.op` is set to undefined: no op object is built.
 */
export function scanOpLine(
  b: Uint8Array,
  start: number,
  end: number,
  facts: OpFacts,
  memory: ScanMemory,
): boolean {
  if (end - start < 2 || b[start] !== OPEN || b[end - 1] !== CLOSE) return false;
  let seen = 0;
  let index = -1;
  let time = -1;
  let process = -2; // -1: the nemesis
  let type: OpType | undefined;
  let fStart = 0;
  let fEnd = 0;
  // Where string-valued fields' text is, and the kind of value each key had (0: absent).
  let lockStart = 0;
  let lockEnd = 0;
  let grantStart = 0;
  let grantEnd = 0;
  let nodeStart = 0;
  let nodeEnd = 0;
  let tokenStart = 0;
  let tokenEnd = 0;
  let lockKind = 0;
  let grantKind = 0;
  let nodeKind = 0;
  let tokenKind = 0;
  let acceptedKind = 0;
  let errorKind = 0;
  let seqKind = 0;
  let seqStart = 0;
  let seqEnd = 0;
  let ttlKind = 0;
  let ttlMs = 0;

  let i = start + 1;
  for (;;) {
    if (b[i] !== QUOTE) return false;
    const key = keyAt(b, i, end);
    if (key === 0 || (seen & key) !== 0) return false;
    seen |= key;
    i = scanValue(b, i + keyLength + 3, end);
    if (i < 0) return false;
    switch (key) {
      case K_INDEX:
        if (valueKind !== INTEGER || integer[0]! < 0) return false;
        index = integer[0]!;
        break;
      case K_TIME:
        if (valueKind !== INTEGER || integer[0]! < 0) return false;
        time = integer[0]!;
        break;
      case K_PROCESS:
        if (valueKind === INTEGER && integer[0]! >= 0) process = integer[0]!;
        else if (valueKind === STRING && bytesAre(b, valueStart, valueEnd, "nemesis")) process = -1;
        else return false;
        break;
      case K_TYPE:
        if (valueKind !== STRING) return false;
        type = opType(b);
        if (type === undefined) return false;
        break;
      case K_F:
        if (valueKind !== STRING) return false;
        fStart = valueStart;
        fEnd = valueEnd;
        break;
      case K_LOCK:
        lockKind = valueKind;
        lockStart = valueStart;
        lockEnd = valueEnd;
        break;
      case K_GRANT:
        grantKind = valueKind;
        grantStart = valueStart;
        grantEnd = valueEnd;
        break;
      case K_TOKEN:
        tokenKind = valueKind;
        tokenStart = valueStart;
        tokenEnd = valueEnd;
        break;
      case K_ACCEPTED:
        acceptedKind = valueKind;
        break;
      case K_NODE:
        nodeKind = valueKind;
        nodeStart = valueStart;
        nodeEnd = valueEnd;
        break;
      case K_ERROR:
        errorKind = valueKind;
        break;
      case K_SEQ:
        seqKind = valueKind;
        seqStart = valueStart;
        seqEnd = valueEnd;
        break;
      case K_TTL:
        ttlKind = valueKind;
        if (valueKind === INTEGER) ttlMs = integer[0]!;
        break;
      // K_VALUE: any scalar will do.
    }
    const after = b[i];
    if (after === COMMA) {
      i++;
      continue;
    }
    if (after === CLOSE && i === end - 1) break;
    return false;
  }
  if (index < 0 || time < 0 || process === -2 || type === undefined || (seen & K_F) === 0) return false;
  if (errorKind !== 0 && errorKind !== STRING && errorKind !== NULL) return false;
  const nemesis = process === -1;

  let f: OpF | undefined;
  if (nemesis) {
    const name = text(b, fStart, fEnd, undefined);
    if (!NEMESIS_F_SET.has(name)) return false;
    f = name as OpF;
    if (nodeKind !== 0 && nodeKind !== STRING && nodeKind !== NULL) return false;
  } else {
    f = clientF(b, fStart, fEnd);
    if (f === undefined) return false;
    if (lockKind !== STRING || lockEnd === lockStart) return false;
    if (grantKind === 0 || grantKind === NULL) {
      if (f === "write") return false;
    } else if (grantKind !== STRING) return false;
    if (acceptedKind !== 0 && acceptedKind !== NULL) {
      if (acceptedKind !== TRUE && acceptedKind !== FALSE) return false;
      if (f !== "write") return false;
    }
  }

  // parse.ts words the errors: a ttlMs off an acquire, or not a non-negative integer.
  if (ttlKind !== 0 && ttlKind !== NULL) {
    if (ttlKind !== INTEGER || ttlMs < 0 || f !== "acquire") return false;
  }
  let seq: bigint | undefined;
  if (seqKind === INTEGER || seqKind === STRING) {
    // parse.ts words the errors: a seq off a write completion, or not a non-negative integer.
    if (f !== "write" || type === "invoke" || b[seqStart] === MINUS) return false;
    if (seqKind === STRING && !isDecimal(b, seqStart, seqEnd)) return false;
    seq = BigInt(text(b, seqStart, seqEnd, undefined));
  } else if (seqKind !== 0 && seqKind !== NULL) return false;

  let token: bigint | undefined;
  if (tokenKind === STRING || tokenKind === INTEGER) {
    token = tokenOf(
      b,
      tokenStart,
      tokenEnd,
      tokenKind === STRING,
      nemesis ? -1 : memorySlot(process),
      memory,
    );
    if (token === undefined) return false;
  } else if (tokenKind !== 0 && tokenKind !== NULL) return false;

  facts.op = undefined;
  facts.index = index;
  facts.time = time;
  facts.type = type;
  facts.f = f;
  // As factsOf reads it: only acquires and writes present a token.
  facts.token = nemesis || f === "release" ? undefined : token;
  if (nemesis) {
    facts.process = -1;
    facts.lock = "";
    facts.grant = undefined;
    facts.accepted = undefined;
    facts.seq = undefined;
    facts.ttlMs = undefined;
    facts.node = nodeKind === STRING ? text(b, nodeStart, nodeEnd, undefined) : undefined;
  } else {
    facts.process = process;
    const lock = text(b, lockStart, lockEnd, memory.lock);
    memory.lock = lock;
    facts.lock = lock;
    if (grantKind === STRING) {
      const slot = memorySlot(process);
      const grant = text(b, grantStart, grantEnd, slot < 0 ? undefined : memory.grant[slot]);
      if (slot >= 0) memory.grant[slot] = grant;
      facts.grant = grant;
    } else facts.grant = undefined;
    facts.accepted = acceptedKind === TRUE ? true : acceptedKind === FALSE ? false : undefined;
    facts.seq = seq;
    facts.ttlMs = ttlKind === INTEGER ? ttlMs : undefined;
    facts.node = undefined;
  }
  return true;
}

/**
 * Where `process`'s strings are remembered, or -1 for none: only small process numbers get a
 * slot, so that a history with huge ids does not turn the memory into a sparse array.
 */
function memorySlot(process: number): number {
  return process <= MEMORY_SLOTS ? process : -1;
}

/** `-?[0-9]+`, as parse.ts accepts for a token string. */
function isDecimal(b: Uint8Array, start: number, end: number): boolean {
  let i = b[start] === MINUS ? start + 1 : start;
  if (i >= end) return false;
  for (; i < end; i++) {
    const d = b[i]!;
    if (d < ZERO || d > NINE) return false;
  }
  return true;
}

/**
 * The token written as b[start, end) (the digits of a JSON integer, or of a token string when
 * `quoted`: both mean BigInt of those digits), reusing this process's last one when the text is
 * the same; undefined if a token string is not `-?[0-9]+`.
 */
function tokenOf(
  b: Uint8Array,
  start: number,
  end: number,
  quoted: boolean,
  process: number,
  memory: ScanMemory,
): bigint | undefined {
  const known = process < 0 ? undefined : memory.tokenText[process];
  // A remembered text passed this check already.
  if (known !== undefined && bytesAre(b, start, end, known)) return memory.token[process]!;
  if (quoted && !isDecimal(b, start, end)) return undefined;
  const digits = text(b, start, end, undefined);
  const token = BigInt(digits);
  if (process >= 0) {
    memory.tokenText[process] = digits;
    memory.token[process] = token;
  }
  return token;
}
