/**
 * Jepsen / Knossos histories in EDN: op maps such as
 * `{:process 3, :type :invoke, :f :acquire, :value nil, :time 123, :index 7}`, either all in
 * one top-level vector or list (Knossos's data files) or one map per line (Jepsen's
 * history.edn, Porcupine's kv logs). Tagged records (`#jepsen.history.Op{…}`) are unwrapped.
 *
 * This reader checks the shape every op shares (`:process`, `:type`, `:f`) and leaves the
 * meaning of `:value` and other fields to whoever interprets the ops for a model.
 */
import type { OpType } from "../history/op.js";
import { err, type InputError, ok, type Result } from "../result.js";
import { type EdnMap, type EdnValue, ednGet, isEdnMap, keywordName, parseEdnAll, untagged } from "./edn.js";

export interface JepsenEvent {
  /** `:index` when present, else the op's position in the file (0-based). */
  index: number;
  /** Integer processes as numbers; `:nemesis` and other keywords as their name. */
  process: number | string;
  type: OpType;
  /** `:f` without the colon (a keyword's name, or the string/symbol given). */
  f: string;
  /** `:value`, or `null` when absent. */
  value: EdnValue;
  /** `:time` when present (Jepsen: nanoseconds). */
  time?: number;
  /** The whole op map, for model-specific fields such as `:key`. */
  fields: EdnMap;
}

const TYPES: readonly OpType[] = ["invoke", "ok", "fail", "info"];

/** Reads a Jepsen EDN history; errors name the file position or the op's position. */
export function parseJepsenEdn(text: string): Result<JepsenEvent[], InputError> {
  const forms = parseEdnAll(text);
  if (!forms.ok) return err({ message: forms.error });
  let maps: EdnValue[] = forms.value;
  const only = maps.length === 1 ? untagged(maps[0] as EdnValue) : undefined;
  if (Array.isArray(only)) maps = [...only];
  else if (only !== null && typeof only === "object" && "list" in only) maps = [...only.list];

  const events: JepsenEvent[] = [];
  for (let position = 0; position < maps.length; position++) {
    const form = untagged(maps[position] as EdnValue);
    const where = `op ${position}`;
    if (!isEdnMap(form))
      return err({ field: where, message: "expected an op map such as {:type :invoke, …}" });
    const event = toEvent(form, position);
    if (!event.ok) return err({ field: where, message: event.error });
    events.push(event.value);
  }
  return ok(events);
}

function toEvent(m: EdnMap, position: number): Result<JepsenEvent, string> {
  const type = keywordName(ednGet(m, "type"));
  if (type === undefined || !(TYPES as readonly string[]).includes(type)) {
    return err(`:type must be one of :invoke :ok :fail :info, got ${show(ednGet(m, "type"))}`);
  }
  const rawProcess = ednGet(m, "process");
  let process: number | string;
  if (typeof rawProcess === "number" && Number.isInteger(rawProcess)) process = rawProcess;
  else if (keywordName(rawProcess) !== undefined) process = keywordName(rawProcess) as string;
  else return err(`:process must be an integer or a keyword, got ${show(rawProcess)}`);
  const f = nameOf(ednGet(m, "f"));
  if (f === undefined) return err(`:f must be a keyword, got ${show(ednGet(m, "f"))}`);
  const rawIndex = ednGet(m, "index");
  const index = typeof rawIndex === "number" && Number.isInteger(rawIndex) ? rawIndex : position;
  const rawTime = ednGet(m, "time");
  const event: JepsenEvent = {
    index,
    process,
    type: type as OpType,
    f,
    value: ednGet(m, "value") ?? null,
    fields: m,
  };
  if (typeof rawTime === "number") event.time = rawTime;
  return ok(event);
}

function nameOf(v: EdnValue | undefined): string | undefined {
  if (typeof v === "string") return v;
  if (v !== null && typeof v === "object" && !Array.isArray(v)) {
    if ("kw" in v) return v.kw;
    if ("sym" in v) return v.sym;
  }
  return undefined;
}

function show(v: EdnValue | undefined): string {
  if (v === undefined) return "nothing";
  return JSON.stringify(v, (_k, x) => (typeof x === "bigint" ? `${x}` : x));
}
