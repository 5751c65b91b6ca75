/**
 * A small reader for EDN (extensible data notation), the format Jepsen and Knossos write
 * histories in. It reads data only: nothing is evaluated, unknown tagged literals are kept
 * as `{ tag, value }` rather than rejected.
 *
 * How EDN values appear in JavaScript (chosen so every kind is distinguishable and plain):
 *
 * | EDN                   | EdnValue                                   |
 * |-----------------------|--------------------------------------------|
 * | `nil` `true` `false`  | `null` `true` `false`                      |
 * | `42` `-7`             | `number`, or `bigint` beyond ±(2^53 − 1) or with an `N` suffix |
 * | `1.5` `1e3` `2M`      | `number`                                   |
 * | `"text"`              | `string` (escapes decoded)                 |
 * | `:invoke` `:a/b`      | `{ kw: "invoke" }` `{ kw: "a/b" }`         |
 * | `foo` `a.b/c`         | `{ sym: "foo" }`                           |
 * | `\a` `\newline`       | `{ char: "a" }` `{ char: "\n" }`           |
 * | `[1 2]`               | a JavaScript array                         |
 * | `(1 2)`               | `{ list: [1, 2] }`                         |
 * | `#{1 2}`              | `{ set: [1, 2] }`                          |
 * | `{:a 1}`              | `{ map: [[{ kw: "a" }, 1]] }` (entries in source order) |
 * | `#inst "…"` `#x.Y{…}` | `{ tag: "inst", value: "…" }`              |
 *
 * Commas are whitespace, `;` starts a comment to the end of the line, `#_` discards the next
 * form. Errors are values naming the offset (and line/column) where reading stopped.
 */
import { err, ok, type Result } from "../result.js";

export interface EdnKeyword {
  readonly kw: string;
}
export interface EdnSymbol {
  readonly sym: string;
}
export interface EdnChar {
  readonly char: string;
}
export interface EdnList {
  readonly list: readonly EdnValue[];
}
export interface EdnSet {
  readonly set: readonly EdnValue[];
}
export interface EdnMap {
  readonly map: ReadonlyArray<readonly [EdnValue, EdnValue]>;
}
export interface EdnTagged {
  readonly tag: string;
  readonly value: EdnValue;
}
export type EdnVector = readonly EdnValue[];

export type EdnValue =
  | null
  | boolean
  | number
  | bigint
  | string
  | EdnKeyword
  | EdnSymbol
  | EdnChar
  | EdnVector
  | EdnList
  | EdnSet
  | EdnMap
  | EdnTagged;

/** Reads exactly one EDN form; anything but whitespace and comments after it is an error. */
export function parseEdn(text: string): Result<EdnValue, string> {
  const all = parseEdnAll(text);
  if (!all.ok) return all;
  if (all.value.length !== 1) {
    return err(`expected exactly one EDN form, found ${all.value.length}`);
  }
  return ok(all.value[0] as EdnValue);
}

/** Reads every top-level form (Jepsen histories are often one op map per line). */
export function parseEdnAll(text: string): Result<EdnValue[], string> {
  const reader = new Reader(text);
  try {
    const forms: EdnValue[] = [];
    for (;;) {
      reader.skipSpace();
      if (reader.pos >= text.length) return ok(forms);
      const form = reader.readForm();
      if (form !== DISCARDED) forms.push(form);
    }
  } catch (e) {
    if (e instanceof EdnSyntaxError) return err(describe(text, e.offset, e.message));
    throw e;
  }
}

/** Calls `onForm` for each top-level form without holding them all; stops at the first error. */
export function forEachEdnForm(text: string, onForm: (form: EdnValue) => void): Result<number, string> {
  const reader = new Reader(text);
  let count = 0;
  try {
    for (;;) {
      reader.skipSpace();
      if (reader.pos >= text.length) return ok(count);
      const form = reader.readForm();
      if (form !== DISCARDED) {
        onForm(form);
        count++;
      }
    }
  } catch (e) {
    if (e instanceof EdnSyntaxError) return err(describe(text, e.offset, e.message));
    throw e;
  }
}

export function kw(name: string): EdnKeyword {
  return { kw: name };
}

export function isKeyword(v: EdnValue | undefined): v is EdnKeyword {
  return typeof v === "object" && v !== null && !Array.isArray(v) && "kw" in v;
}

export function isEdnMap(v: EdnValue | undefined): v is EdnMap {
  return typeof v === "object" && v !== null && !Array.isArray(v) && "map" in v;
}

/** The name of a keyword value, or undefined for anything else. */
export function keywordName(v: EdnValue | undefined): string | undefined {
  return isKeyword(v) ? v.kw : undefined;
}

/** Looks up a keyword key (`ednGet(m, "type")` finds `:type`) in a map; undefined when absent. */
export function ednGet(m: EdnMap, keyword: string): EdnValue | undefined {
  for (const [k, v] of m.map) {
    if (isKeyword(k) && k.kw === keyword) return v;
  }
  return undefined;
}

/** A tagged record such as `#jepsen.history.Op{…}` unwrapped to its map, or the value itself. */
export function untagged(v: EdnValue): EdnValue {
  while (typeof v === "object" && v !== null && !Array.isArray(v) && "tag" in v) v = v.value;
  return v;
}

class EdnSyntaxError extends Error {
  constructor(
    readonly offset: number,
    message: string,
  ) {
    super(message);
  }
}

/** Marks a `#_`-discarded form; never escapes the reader. */
const DISCARDED = Symbol("discarded");
type Form = EdnValue | typeof DISCARDED;

function describe(text: string, offset: number, message: string): string {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return `EDN syntax error at offset ${offset} (line ${line}, column ${offset - lineStart + 1}): ${message}`;
}

const CLOSERS: Record<string, string> = { "[": "]", "(": ")", "{": "}" };
const NAMED_CHARS: Record<string, string> = {
  newline: "\n",
  return: "\r",
  space: " ",
  tab: "\t",
  formfeed: "\f",
  backspace: "\b",
};
const STRING_ESCAPES: Record<string, string> = {
  '"': '"',
  "\\": "\\",
  n: "\n",
  t: "\t",
  r: "\r",
  b: "\b",
  f: "\f",
  "/": "/",
};

function isSpace(c: number): boolean {
  // space, tab, newline, CR, comma, form feed, vertical tab
  return c === 32 || c === 9 || c === 10 || c === 13 || c === 44 || c === 12 || c === 11;
}

/** Characters that end a token (symbol, keyword, number). */
function isDelimiter(c: number): boolean {
  return (
    isSpace(c) ||
    c === 91 || // [
    c === 93 || // ]
    c === 40 || // (
    c === 41 || // )
    c === 123 || // {
    c === 125 || // }
    c === 34 || // "
    c === 59 // ;
  );
}

const INTEGER = /^[+-]?\d+N?$/;
const FLOAT = /^[+-]?\d+(\.\d*)?([eE][+-]?\d+)?M?$/;
const RATIO = /^[+-]?\d+\/\d+$/;

class Reader {
  pos = 0;
  constructor(private readonly text: string) {}

  skipSpace(): void {
    const t = this.text;
    while (this.pos < t.length) {
      const c = t.charCodeAt(this.pos);
      if (isSpace(c)) this.pos++;
      else if (c === 59) {
        while (this.pos < t.length && t.charCodeAt(this.pos) !== 10) this.pos++;
      } else break;
    }
  }

  readForm(): Form {
    const t = this.text;
    const start = this.pos;
    const c = t[this.pos];
    if (c === undefined) throw new EdnSyntaxError(start, "unexpected end of input");
    switch (c) {
      case "[":
        this.pos++;
        return this.readSeq("]", start);
      case "(":
        this.pos++;
        return { list: this.readSeq(")", start) };
      case "{":
        this.pos++;
        return this.readMap(start);
      case '"':
        return this.readString();
      case "\\":
        return this.readChar();
      case "#":
        return this.readDispatch();
      case "]":
      case ")":
      case "}":
        throw new EdnSyntaxError(start, `unexpected '${c}'`);
      default:
        return this.readAtom();
    }
  }

  /** Reads forms until `closer`; the opener has been consumed. */
  private readSeq(closer: string, openedAt: number): EdnValue[] {
    const items: EdnValue[] = [];
    for (;;) {
      this.skipSpace();
      const c = this.text[this.pos];
      if (c === undefined) {
        throw new EdnSyntaxError(openedAt, `unclosed '${openerOf(closer)}' (expected '${closer}')`);
      }
      if (c === closer) {
        this.pos++;
        return items;
      }
      if (c === "]" || c === ")" || c === "}") {
        throw new EdnSyntaxError(this.pos, `expected '${closer}' but found '${c}'`);
      }
      const form = this.readForm();
      if (form !== DISCARDED) items.push(form);
    }
  }

  private readMap(openedAt: number): EdnMap {
    const items = this.readSeq("}", openedAt);
    if (items.length % 2 !== 0) {
      throw new EdnSyntaxError(openedAt, "map literal has an odd number of forms");
    }
    const entries: (readonly [EdnValue, EdnValue])[] = [];
    for (let i = 0; i < items.length; i += 2) entries.push([items[i] as EdnValue, items[i + 1] as EdnValue]);
    return { map: entries };
  }

  private readString(): string {
    const t = this.text;
    const start = this.pos;
    this.pos++; // opening quote
    let out = "";
    let chunkStart = this.pos;
    while (this.pos < t.length) {
      const c = t.charCodeAt(this.pos);
      if (c === 34) {
        out += t.slice(chunkStart, this.pos);
        this.pos++;
        return out;
      }
      if (c === 92) {
        out += t.slice(chunkStart, this.pos);
        const e = t[this.pos + 1];
        if (e === undefined) break;
        if (e === "u") {
          const hex = t.slice(this.pos + 2, this.pos + 6);
          if (!/^[0-9a-fA-F]{4}$/.test(hex)) {
            throw new EdnSyntaxError(this.pos, `bad unicode escape '\\u${hex}'`);
          }
          out += String.fromCharCode(Number.parseInt(hex, 16));
          this.pos += 6;
        } else {
          const decoded = STRING_ESCAPES[e];
          if (decoded === undefined) throw new EdnSyntaxError(this.pos, `unknown string escape '\\${e}'`);
          out += decoded;
          this.pos += 2;
        }
        chunkStart = this.pos;
      } else this.pos++;
    }
    throw new EdnSyntaxError(start, "unterminated string");
  }

  private readChar(): EdnChar {
    const start = this.pos;
    this.pos++; // backslash
    // A character literal is at least one character, even a delimiter (`\(`, `\ `).
    const first = this.text[this.pos];
    if (first === undefined) throw new EdnSyntaxError(start, "character literal at end of input");
    let end = this.pos + 1;
    while (end < this.text.length && !isDelimiter(this.text.charCodeAt(end))) end++;
    const token = this.text.slice(this.pos, end);
    this.pos = end;
    if (token.length === 1) return { char: token };
    const named = NAMED_CHARS[token];
    if (named !== undefined) return { char: named };
    if (/^u[0-9a-fA-F]{4}$/.test(token))
      return { char: String.fromCharCode(Number.parseInt(token.slice(1), 16)) };
    throw new EdnSyntaxError(start, `unknown character literal '\\${token}'`);
  }

  private readDispatch(): Form {
    const start = this.pos;
    const next = this.text[this.pos + 1];
    if (next === "{") {
      this.pos += 2;
      return { set: this.readSeq("}", start) };
    }
    if (next === "_") {
      this.pos += 2;
      this.skipSpace();
      this.readForm();
      return DISCARDED;
    }
    if (next === "#") {
      // ##Inf, ##-Inf, ##NaN
      this.pos += 2;
      const token = this.readToken();
      if (token === "Inf") return Number.POSITIVE_INFINITY;
      if (token === "-Inf") return Number.NEGATIVE_INFINITY;
      if (token === "NaN") return Number.NaN;
      throw new EdnSyntaxError(start, `unknown symbolic value '##${token}'`);
    }
    this.pos++;
    const tag = this.readToken();
    if (tag === "" || !/^[A-Za-z]/.test(tag)) {
      throw new EdnSyntaxError(start, "'#' must be followed by '{', '_' or a tag name");
    }
    this.skipSpace();
    if (this.pos >= this.text.length) throw new EdnSyntaxError(start, `tag #${tag} has no value`);
    const value = this.readForm();
    if (value === DISCARDED) throw new EdnSyntaxError(start, `tag #${tag} has no value`);
    return { tag, value };
  }

  private readToken(): string {
    const start = this.pos;
    while (this.pos < this.text.length && !isDelimiter(this.text.charCodeAt(this.pos))) this.pos++;
    return this.text.slice(start, this.pos);
  }

  private readAtom(): EdnValue {
    const start = this.pos;
    const token = this.readToken();
    if (token === "") throw new EdnSyntaxError(start, `unexpected '${this.text[start]}'`);
    const c = token.charCodeAt(0);
    if (c === 58) {
      // ':' keyword; '::auto' keywords are Clojure-only but harmless to keep verbatim
      if (token.length === 1) throw new EdnSyntaxError(start, "empty keyword ':'");
      return { kw: token.slice(1) };
    }
    const second = token.charCodeAt(1);
    const startsNumber = isDigit(c) || ((c === 43 || c === 45) && isDigit(second));
    if (startsNumber) return parseNumber(token, start);
    if (token === "nil") return null;
    if (token === "true") return true;
    if (token === "false") return false;
    return { sym: token };
  }
}

function openerOf(closer: string): string {
  for (const [open, close] of Object.entries(CLOSERS)) if (close === closer) return open;
  return "?";
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

function parseNumber(token: string, offset: number): number | bigint {
  if (INTEGER.test(token)) {
    const forcedBig = token.endsWith("N");
    const digits = forcedBig ? token.slice(0, -1) : token;
    const n = Number(digits);
    if (!forcedBig && Number.isSafeInteger(n)) return n;
    return BigInt(digits.startsWith("+") ? digits.slice(1) : digits);
  }
  if (FLOAT.test(token)) return Number(token.endsWith("M") ? token.slice(0, -1) : token);
  if (RATIO.test(token)) {
    const [num, den] = token.split("/");
    return Number(num) / Number(den);
  }
  throw new EdnSyntaxError(offset, `malformed number '${token}'`);
}
