/** ProcessMap: any client id works, and large or odd ids never grow the dense array. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ProcessMap } from "../../src/history/process-map.js";

const idArb = fc.oneof(
  fc.nat(70_000),
  fc.constantFrom(2 ** 32 - 1, 2 ** 32, 3e8, Number.MAX_SAFE_INTEGER, "alice", "7", "", "nemesis"),
  fc.string(),
);

describe("ProcessMap", () => {
  it("behaves like a Map for any ids, sets and clears", () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(idArb, fc.option(fc.integer(), { nil: undefined }))), (steps) => {
        const m = new ProcessMap<number>();
        const ref = new Map<number | string, number>();
        for (const [id, v] of steps) {
          m.set(id, v);
          if (v === undefined) ref.delete(id);
          else ref.set(id, v);
          expect(m.get(id)).toBe(v);
        }
        for (const [id, v] of ref) expect(m.get(id)).toBe(v);
        expect([...m.values()].sort()).toEqual([...ref.values()].sort());
        m.clear();
        expect([...m.values()]).toEqual([]);
      }),
    );
  });

  it("keeps ids from 65536 up out of the dense array (no sparse array walk)", () => {
    const m = new ProcessMap<string>();
    for (const id of [65536, 3e8, 2 ** 32, Number.MAX_SAFE_INTEGER, "alice"]) m.set(id, String(id));
    expect((m as unknown as { dense: unknown[] }).dense.length).toBe(0);
    m.set(3, "three");
    expect((m as unknown as { dense: unknown[] }).dense.length).toBe(4);
    expect([...m.values()]).toEqual([
      "three",
      "65536",
      "300000000",
      "4294967296",
      "9007199254740991",
      "alice",
    ]);
  });
});
