/** "1 fault", "2 faults": a count and its noun, plural unless the count is one. */
export function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}
