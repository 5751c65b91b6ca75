/** Parsing durations given on the command line: "500ms", "20s", "2m", "1h"; a bare number is seconds. */
import { err, type InputError, ok, type Result } from "../result.js";

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Milliseconds, or an InputError naming `field`. */
export function parseDuration(text: string, field: string): Result<number, InputError> {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(text.trim());
  const unit = m?.[2] ?? "s";
  const value = m?.[1] === undefined ? Number.NaN : Number(m[1]) * (UNITS[unit] ?? 1000);
  if (!Number.isFinite(value) || value <= 0) {
    return err({ field, message: `expected a positive duration such as 500ms, 20s or 2m, got "${text}"` });
  }
  return ok(Math.round(value));
}
