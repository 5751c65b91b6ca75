/**
 * Where a top-level key's value starts in a JSON object's text: for reading that value
 * exactly when JSON.parse cannot (an integer beyond 2^53 becomes a rounded double).
 *
 * It walks the text as JSON (depth, strings and their escapes), so a key of that name nested
 * inside another value, or the same characters inside a string, never count. Keys are compared
 * after JSON unescaping ("\u0074oken" is "token"). When the key occurs more than once at the top
 * level the last one wins, as with JSON.parse, so the value found is the one JSON.parse kept.
 */

const QUOTE = 34;
const BACKSLASH = 92;
const COMMA = 44;
const COLON = 58;
const OPEN_OBJECT = 123;
const CLOSE_OBJECT = 125;
const OPEN_ARRAY = 91;
const CLOSE_ARRAY = 93;

function isSpace(c: number): boolean {
  return c === 32 || c === 9 || c === 10 || c === 13;
}

/**
 * Index in `json` of the first character of the value of the last top-level `key`, or -1 if
 * the top-level object has no such key. `json` must be text that JSON.parse accepted as an
 * object; on anything else the answer is unspecified (but it never throws).
 */
export function topLevelValueStart(json: string, key: string): number {
  let depth = 0;
  let keyNext = false;
  let found = -1;
  const n = json.length;
  for (let i = 0; i < n; i++) {
    const c = json.charCodeAt(i);
    if (c === QUOTE) {
      const start = i;
      let escaped = false;
      for (i++; i < n; i++) {
        const d = json.charCodeAt(i);
        if (d === BACKSLASH) {
          escaped = true;
          i++;
        } else if (d === QUOTE) break;
      }
      if (depth === 1 && keyNext) {
        keyNext = false;
        if (keyText(json, start, i, escaped) === key) {
          let j = i + 1;
          while (j < n && isSpace(json.charCodeAt(j))) j++;
          if (json.charCodeAt(j) !== COLON) return -1;
          for (j++; j < n && isSpace(json.charCodeAt(j)); j++);
          found = j;
        }
      }
      continue;
    }
    if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      depth++;
      keyNext = depth === 1 && c === OPEN_OBJECT;
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) depth--;
    else if (c === COMMA && depth === 1) keyNext = true;
  }
  return found;
}

/** The text of the JSON string json[start..close] (quotes included), unescaped if it has escapes. */
function keyText(json: string, start: number, close: number, escaped: boolean): string | undefined {
  if (!escaped) return json.slice(start + 1, close);
  try {
    return JSON.parse(json.slice(start, close + 1)) as string;
  } catch {
    return undefined;
  }
}
