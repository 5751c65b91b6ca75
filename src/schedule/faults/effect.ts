import type { RecordedStart } from "./descriptor.js";

/** False when the world recorded the start as changing nothing (`unsupported` or `ignored`). */
export function hadEffect(s: RecordedStart): boolean {
  return s.value.unsupported === undefined && s.value.ignored === undefined;
}
