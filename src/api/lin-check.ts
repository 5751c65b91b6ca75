/**
 * `lockcheck check --checker linearizable --model <model> <file>`: reads a history file in
 * whichever format it is, and checks it for linearizability against the model.
 *
 * Formats, by extension first, then by content:
 * - `.jsonl`: a lockcheck history (src/history/read.ts; validated as it is read).
 * - `.edn`: a Jepsen / Knossos history (src/formats/jepsen-edn.ts).
 * - `.log`, or text with `INFO  jepsen.util - …` lines: a Jepsen console log as in Porcupine's
 *   etcd corpus (src/checkers/linearizable/porcupine.ts); only the `cas-register` model applies.
 * - anything else: JSONL if its first line is a JSON object, else Jepsen EDN (Porcupine's kv
 *   logs are EDN op maps in `.txt` files).
 */
import { readFile } from "node:fs/promises";
import type { CallRecord } from "../checkers/linearizable/lin-calls.js";
import { callsFromHistory, callsFromJepsen } from "../checkers/linearizable/lin-calls.js";
import {
  checkCallsLinearizable,
  isLinModelName,
  LIN_MODEL_NAMES,
} from "../checkers/linearizable/lin-models.js";
import {
  checkLinearizable,
  type LinearizableOptions,
  linearizableVerdict,
} from "../checkers/linearizable/linearizable.js";
import { casRegisterModel } from "../checkers/linearizable/models/cas-register.js";
import { looksLikeJepsenLog, parseJepsenEtcdLog } from "../checkers/linearizable/porcupine.js";
import type { Verdict } from "../checkers/verdict.js";
import { parseJepsenEdn } from "../formats/jepsen-edn.js";
import { readHistoryFile } from "../history/read.js";
import { err, type InputError, ok, type Result } from "../result.js";

export type LinFileFormat = "lockcheck-jsonl" | "jepsen-edn" | "jepsen-log";

export async function checkFileLinearizable(
  path: string,
  model: string,
  opts: { timeLimitMs?: number; memoryLimitMb?: number },
): Promise<Result<Verdict, InputError>> {
  const fail = (e: InputError) => err({ file: path, ...e });
  if (!isLinModelName(model)) {
    return fail({
      field: "--model",
      message: `unknown model "${model}" (expected ${LIN_MODEL_NAMES.join(", ")})`,
    });
  }
  const options: LinearizableOptions = {};
  if (opts.timeLimitMs !== undefined) options.timeLimitMs = opts.timeLimitMs;
  if (opts.memoryLimitMb !== undefined) options.memoryLimitMb = opts.memoryLimitMb;

  let text: string | undefined;
  if (!path.endsWith(".jsonl")) {
    try {
      text = await readFile(path, "utf8");
    } catch (e) {
      return fail({ message: `cannot read the history: ${(e as Error).message}` });
    }
  }
  const format = detectFormat(path, text);

  if (format === "jepsen-log") {
    if (model !== "cas-register") {
      return fail({
        field: "--model",
        message: `a Jepsen etcd log is a CAS-register history: use --model cas-register`,
      });
    }
    const ops = parseJepsenEtcdLog(text ?? "");
    if (!ops.ok) return fail(ops.error);
    return ok(
      withFormat(
        linearizableVerdict(casRegisterModel, checkLinearizable(casRegisterModel, ops.value, options)),
        format,
      ),
    );
  }

  let calls: Result<CallRecord[], InputError>;
  if (format === "lockcheck-jsonl") {
    const read = await readHistoryFile(path);
    if (!read.ok) {
      const first = read.error[0] ?? { message: "unreadable history" };
      const more = read.error.length > 1 ? ` (and ${read.error.length - 1} more problems)` : "";
      return fail({ ...first, message: `${first.message}${more}` });
    }
    calls = callsFromHistory(read.value.ops);
  } else {
    const events = parseJepsenEdn(text ?? "");
    if (!events.ok) return fail(events.error);
    calls = callsFromJepsen(events.value);
  }
  if (!calls.ok) return fail(calls.error);
  const verdict = checkCallsLinearizable(model, calls.value, options);
  if (!verdict.ok) return fail(verdict.error);
  return ok(withFormat(verdict.value, format));
}

/** Which reader a file needs; `text` is the content when it was read (everything but `.jsonl`). */
export function detectFormat(path: string, text: string | undefined): LinFileFormat {
  if (path.endsWith(".jsonl") || text === undefined) return "lockcheck-jsonl";
  if (path.endsWith(".edn")) return "jepsen-edn";
  if (path.endsWith(".log") || looksLikeJepsenLog(text)) return "jepsen-log";
  const firstLine = text.trimStart().split("\n", 1)[0] ?? "";
  try {
    const v: unknown = JSON.parse(firstLine);
    if (typeof v === "object" && v !== null && !Array.isArray(v)) return "lockcheck-jsonl";
  } catch {
    // not JSON: EDN
  }
  return "jepsen-edn";
}

function withFormat(v: Verdict, format: LinFileFormat): Verdict {
  return { ...v, stats: { ...v.stats, format } };
}
