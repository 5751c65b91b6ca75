/** The sequential specifications, one step at a time. */
import { describe, expect, it } from "vitest";
import { casRegisterModel } from "../../src/checkers/linearizable/models/cas-register.js";
import { fencedMutexModel } from "../../src/checkers/linearizable/models/fenced-mutex.js";
import { kvModel, kvWholeModel } from "../../src/checkers/linearizable/models/kv.js";
import type { LockInput, LockOutput } from "../../src/checkers/linearizable/models/lock-op.js";
import type { Model } from "../../src/checkers/linearizable/models/model.js";
import { mutexModel } from "../../src/checkers/linearizable/models/mutex.js";
import { ownerMutexModel } from "../../src/checkers/linearizable/models/owner-mutex.js";

/** Runs steps from init; returns the final state, or the index of the first illegal step. */
function run<S, I, O>(m: Model<S, I, O>, steps: [I, O | undefined][]): { state: S } | { illegalAt: number } {
  let s = m.init();
  for (let i = 0; i < steps.length; i++) {
    const [input, output] = steps[i] as [I, O | undefined];
    const next = m.step(s, input, output);
    if (next === undefined) return { illegalAt: i };
    s = next;
  }
  return { state: s };
}

const acq = (process: number, token?: bigint): [LockInput, LockOutput] => [
  { f: "acquire", process, lock: "l" },
  token === undefined ? {} : { token },
];
const rel = (process: number): [LockInput, LockOutput] => [{ f: "release", process, lock: "l" }, {}];
const info = ([input]: [LockInput, LockOutput]): [LockInput, undefined] => [input, undefined];

describe("mutex (Knossos semantics)", () => {
  it("allows acquire when free and release when held, by anyone", () => {
    expect(run(mutexModel, [acq(1), rel(2), acq(3)])).toEqual({ state: true });
  });
  it("refuses a second acquire and a release of a free lock", () => {
    expect(run(mutexModel, [acq(1), acq(2)])).toEqual({ illegalAt: 1 });
    expect(run(mutexModel, [rel(1)])).toEqual({ illegalAt: 0 });
  });
});

describe("owner-mutex", () => {
  it("lets only the holder release", () => {
    expect(run(ownerMutexModel, [acq(1), rel(1), acq(2)])).toEqual({ state: "2" });
    expect(run(ownerMutexModel, [acq(1), rel(2)])).toEqual({ illegalAt: 1 });
  });
  it("is stricter than mutex on the same steps", () => {
    expect("state" in run(mutexModel, [acq(1), rel(2)])).toBe(true);
  });
});

describe("fenced-mutex", () => {
  it("requires each grant's token above every earlier grant's", () => {
    expect(run(fencedMutexModel, [acq(1, 5n), rel(1), acq(2, 9n)])).toEqual({
      state: { holder: "2", floor: 10n },
    });
    expect(run(fencedMutexModel, [acq(1, 5n), rel(1), acq(2, 5n)])).toEqual({ illegalAt: 2 });
    expect(run(fencedMutexModel, [acq(1, 5n), rel(1), acq(2, 4n)])).toEqual({ illegalAt: 2 });
  });
  it("compares tokens beyond 2^53 exactly", () => {
    const big = 2n ** 63n - 2n;
    expect(run(fencedMutexModel, [acq(1, big), rel(1), acq(2, big + 1n)])).toEqual({
      state: { holder: "2", floor: big + 2n },
    });
    expect(run(fencedMutexModel, [acq(1, big + 1n), rel(1), acq(2, big)])).toEqual({ illegalAt: 2 });
  });
  it("counts a grant with an unknown token as using one up", () => {
    // acquire (info, token unknown but at least 6), release, then token 6 is too low.
    expect(run(fencedMutexModel, [acq(1, 5n), rel(1), info(acq(2)), rel(2), acq(3, 6n)])).toEqual({
      illegalAt: 4,
    });
    expect(run(fencedMutexModel, [acq(1, 5n), rel(1), info(acq(2)), rel(2), acq(3, 7n)])).toEqual({
      state: { holder: "3", floor: 8n },
    });
  });
  it("is owner-aware", () => {
    expect(run(fencedMutexModel, [acq(1, 1n), rel(2)])).toEqual({ illegalAt: 1 });
  });
});

describe("cas-register", () => {
  it("starts nil; reads see the last write; cas succeeds exactly when the value matches", () => {
    expect(
      run(casRegisterModel, [
        [{ f: "read" }, { f: "read", value: null }],
        [{ f: "write", value: 1 }, { f: "write" }],
        [
          { f: "cas", from: 1, to: 2 },
          { f: "cas", ok: true },
        ],
        [
          { f: "cas", from: 1, to: 3 },
          { f: "cas", ok: false },
        ],
        [{ f: "read" }, { f: "read", value: 2 }],
      ]),
    ).toEqual({ state: 2 });
    expect(run(casRegisterModel, [[{ f: "read" }, { f: "read", value: 0 }]])).toEqual({ illegalAt: 0 });
    expect(
      run(casRegisterModel, [
        [
          { f: "cas", from: null, to: 1 },
          { f: "cas", ok: false },
        ],
      ]),
    ).toEqual({
      illegalAt: 0,
    });
  });
  it("with an unknown outcome, a read allows anything and a cas applies when it matches", () => {
    expect(
      run(casRegisterModel, [
        [{ f: "write", value: 1 }, undefined],
        [{ f: "read" }, undefined],
        [{ f: "cas", from: 1, to: 4 }, undefined],
        [{ f: "cas", from: 9, to: 5 }, undefined],
      ]),
    ).toEqual({ state: 4 });
  });
  it("tells numbers from strings", () => {
    expect(casRegisterModel.key(1)).not.toEqual(casRegisterModel.key("1"));
  });
});

describe("kv", () => {
  for (const [name, make] of [
    ["kvModel", kvModel],
    ["kvWholeModel", kvWholeModel],
  ] as const) {
    it(`${name}: put, append and get on one key`, () => {
      const m = make() as Model<
        unknown,
        Parameters<ReturnType<typeof kvModel>["step"]>[1],
        { value?: string }
      >;
      const r = run(m, [
        [{ f: "get", key: "k", value: "" }, { value: "" }],
        [{ f: "put", key: "k", value: "ab" }, {}],
        [{ f: "append", key: "k", value: "c" }, {}],
        [{ f: "get", key: "k", value: "" }, { value: "abc" }],
        [{ f: "get", key: "k", value: "" }, undefined],
      ]);
      expect("state" in r).toBe(true);
      expect(run(m, [[{ f: "get", key: "k", value: "" }, { value: "x" }]])).toEqual({ illegalAt: 0 });
    });
  }

  it("kvModel: equal values reached in different ways are the same state", () => {
    const m = kvModel();
    const viaAppends = m.step(
      m.step(m.init(), { f: "append", key: "k", value: "a" }, {}) as number,
      {
        f: "append",
        key: "k",
        value: "bc",
      },
      {},
    ) as number;
    const viaPut = m.step(m.init(), { f: "put", key: "k", value: "abc" }, {}) as number;
    const viaOtherSplit = m.step(
      m.step(m.init(), { f: "put", key: "k", value: "ab" }, {}) as number,
      {
        f: "append",
        key: "k",
        value: "c",
      },
      {},
    ) as number;
    expect(m.key(viaAppends)).toBe(m.key(viaPut));
    expect(m.key(viaOtherSplit)).toBe(m.key(viaPut));
    expect(m.describeState(viaAppends)).toBe('the value "abc"');
  });

  it("kvWholeModel keeps keys apart, and a state is the same however it was reached", () => {
    const m = kvWholeModel();
    const put = (s: number, key: string, value: string) => m.step(s, { f: "put", key, value }, {}) as number;
    const append = (s: number, key: string, value: string) =>
      m.step(s, { f: "append", key, value }, {}) as number;
    const a = put(m.init(), "a", "1");
    const b = put(m.init(), "b", "1");
    expect(m.key(a)).not.toBe(m.key(b));
    expect(m.key(put(b, "a", "1"))).toBe(m.key(put(a, "b", "1")));
    expect(m.key(append(append(m.init(), "a", "x"), "a", "y"))).toBe(m.key(put(m.init(), "a", "xy")));
    expect(m.key(put(a, "a", ""))).toBe(m.key(m.init()));
    expect(m.describeState(put(b, "a", "1"))).toBe('the store holding a="1", b="1"');
  });
});
