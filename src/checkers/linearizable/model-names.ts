/**
 * The names `--model` accepts, on their own: the cli lists them without loading the search
 * (checkers/linearizable/lin-models.ts maps each to its model).
 */
export const LIN_MODEL_NAMES = ["mutex", "owner-mutex", "fenced-mutex", "cas-register", "kv"] as const;
export type LinModelName = (typeof LIN_MODEL_NAMES)[number];

export function isLinModelName(name: string): name is LinModelName {
  return (LIN_MODEL_NAMES as readonly string[]).includes(name);
}
