/** Hand-written scenarios for each checker: what is flagged, where, and how it is explained. */
import { describe, expect, it } from "vitest";
import type { Checker } from "../../src/checkers/checker.js";
import {
  CHECKER_NAMES,
  checkOps,
  createCheckers,
  isCheckerName,
  SAFETY_CHECKERS,
} from "../../src/checkers/index.js";
import { createLivenessChecker } from "../../src/checkers/liveness.js";
import { createMutualExclusionChecker } from "../../src/checkers/mutual-exclusion.js";
import { createStaleWriteChecker } from "../../src/checkers/stale-write.js";
import { createTokenOrderChecker } from "../../src/checkers/token-order.js";
import type { Verdict } from "../../src/checkers/verdict.js";
import { formatMs } from "../../src/history/describe.js";
import type { Op } from "../../src/history/op.js";
import { build } from "./build.js";

function run(make: () => Checker, ops: readonly Op[]): Verdict {
  const c = make();
  for (const op of ops) c.step(op);
  return c.finish();
}

describe("registry", () => {
  it("builds checkers by name and runs them in one pass", () => {
    expect(SAFETY_CHECKERS).toEqual(["stale-write", "mutual-exclusion", "token-order"]);
    expect(CHECKER_NAMES).toEqual([...SAFETY_CHECKERS, "liveness"]);
    expect(createCheckers().map((c) => c.name)).toEqual(CHECKER_NAMES);
    expect(checkOps([], ["token-order"]).map((v) => v.checker)).toEqual(["token-order"]);
    expect(isCheckerName("stale-write")).toBe(true);
    expect(isCheckerName("linearizable")).toBe(false);
    expect(isCheckerName("toString")).toBe(false);
  });
});

describe("stale-write", () => {
  it("flags the GC-pause late write with both writes, both grants and the moment", () => {
    const h = build();
    h.acquire(0, 1);
    const acq1 = h.granted(1, 1, "1:0", 33n);
    h.nemesis(2, "pause", "client:1");
    h.acquire(39, 2);
    const acq2 = h.granted(40, 2, "2:0", 34n);
    h.write(50, 2, "2:0", 34n);
    const newer = h.wrote(51, 2, "2:0", true, 34n);
    h.nemesis(60, "resume", "client:1");
    h.write(61, 1, "1:0", 33n);
    const stale = h.wrote(62, 1, "1:0", true, 33n);
    const v = run(createStaleWriteChecker, h.ops);
    expect(v.valid).toBe(false);
    expect(v.anomalies).toHaveLength(1);
    const a = v.anomalies[0]!;
    expect(a.kind).toBe("stale-write");
    expect(a.ops).toEqual([stale, newer, acq1, acq2]);
    expect(a.time).toBe(62_000_000);
    for (const s of ["client 1", "token 33", "client 2", "token 34", "62 ms", "51 ms", "61 ms"]) {
      expect(a.explanation).toContain(s);
    }
  });

  it("does not flag a write that overlaps the newer one (the resource may have taken it first)", () => {
    const h = build();
    h.acquire(0, 1);
    h.granted(1, 1, "1:0", 1n);
    h.acquire(2, 2);
    h.granted(3, 2, "2:0", 2n);
    h.write(10, 1, "1:0", 1n);
    h.write(11, 2, "2:0", 2n);
    h.wrote(12, 2, "2:0", true, 2n);
    h.wrote(13, 1, "1:0", true, 1n);
    expect(run(createStaleWriteChecker, h.ops).valid).toBe(true);
  });

  it("ranks grants without tokens by acquisition order", () => {
    const h = build();
    h.acquire(0, 1);
    h.granted(1, 1, "1:0");
    h.acquire(2, 2);
    h.granted(3, 2, "2:0");
    h.write(4, 2, "2:0");
    h.wrote(5, 2, "2:0", true);
    h.write(6, 1, "1:0");
    h.wrote(7, 1, "1:0", true);
    const v = run(createStaleWriteChecker, h.ops);
    expect(v.valid).toBe(false);
    expect(v.anomalies[0]!.explanation).toContain("no token");
  });

  it("a rejected stale write is fine; an unknown one makes the verdict unknown", () => {
    for (const [outcome, valid] of [
      ["rejected", true],
      ["info", "unknown"],
      ["open", "unknown"],
    ] as const) {
      const h = build();
      h.acquire(0, 1);
      h.granted(1, 1, "1:0", 5n);
      h.acquire(2, 2);
      h.granted(3, 2, "2:0", 6n);
      h.write(4, 2, "2:0", 6n);
      h.wrote(5, 2, "2:0", true, 6n);
      h.write(6, 1, "1:0", 5n);
      if (outcome === "rejected") h.wrote(7, 1, "1:0", false, 5n);
      if (outcome === "info") h.writeInfo(7, 1, "1:0", 5n);
      const v = run(createStaleWriteChecker, h.ops);
      expect(v.valid, outcome).toBe(valid);
      if (valid === "unknown") expect(v.anomalies[0]!.kind).toBe("possible-stale-write");
    }
  });

  it("keeps locks apart", () => {
    const h = build();
    h.acquire(0, 1, "A");
    h.granted(1, 1, "1:0", 5n, "A");
    h.acquire(2, 2, "B");
    h.granted(3, 2, "2:0", 6n, "B");
    h.write(4, 2, "2:0", 6n, "B");
    h.wrote(5, 2, "2:0", true, 6n, "B");
    h.write(6, 1, "1:0", 5n, "A");
    h.wrote(7, 1, "1:0", true, 5n, "A");
    expect(run(createStaleWriteChecker, h.ops).valid).toBe(true);
  });
});

describe("mutual-exclusion", () => {
  it("flags G1, G2, G1 accepted writes in real-time order, citing all three", () => {
    const h = build();
    h.acquire(0, 1);
    h.granted(1, 1, "1:0");
    h.write(2, 1, "1:0");
    const a = h.wrote(3, 1, "1:0", true);
    h.acquire(4, 2);
    h.granted(5, 2, "2:0");
    h.write(6, 2, "2:0");
    const b = h.wrote(7, 2, "2:0", true);
    h.write(8, 1, "1:0");
    const c = h.wrote(9, 1, "1:0", true);
    const v = run(createMutualExclusionChecker, h.ops);
    expect(v.valid).toBe(false);
    expect(v.anomalies[0]).toMatchObject({ kind: "interleaved-writes", ops: [c, b, a], time: 9_000_000 });
    expect(v.anomalies[0]!.explanation).toMatch(/Client 1 .* client 2 .* client 1 wrote again/);
  });

  it("does not flag a hand-over (G1 then G2) or overlapping writes", () => {
    const h = build();
    h.acquire(0, 1);
    h.granted(1, 1, "1:0");
    h.write(2, 1, "1:0");
    h.wrote(3, 1, "1:0", true);
    h.acquire(4, 2);
    h.granted(5, 2, "2:0");
    h.write(6, 2, "2:0");
    h.write(6, 1, "1:0"); // overlaps 2's write
    h.wrote(7, 2, "2:0", true);
    h.wrote(8, 1, "1:0", true);
    h.write(9, 2, "2:0");
    h.wrote(10, 2, "2:0", true);
    const v = run(createMutualExclusionChecker, h.ops);
    expect(v.valid).toBe(true);
  });

  it("an info third write makes the verdict unknown; a rejected one does not count", () => {
    for (const [outcome, valid] of [
      ["info", "unknown"],
      ["rejected", true],
    ] as const) {
      const h = build();
      h.acquire(0, 1);
      h.granted(1, 1, "1:0");
      h.write(2, 1, "1:0");
      h.wrote(3, 1, "1:0", true);
      h.acquire(4, 2);
      h.granted(5, 2, "2:0");
      h.write(6, 2, "2:0");
      h.wrote(7, 2, "2:0", true);
      h.write(8, 1, "1:0");
      if (outcome === "info") h.writeInfo(9, 1, "1:0");
      else h.wrote(9, 1, "1:0", false);
      expect(run(createMutualExclusionChecker, h.ops).valid, outcome).toBe(valid);
    }
  });
});

describe("token-order", () => {
  function grants(tokens: Array<[number, bigint, "serial" | "overlap"]>): Op[] {
    const h = build();
    let t = 0;
    tokens.forEach(([p, token, mode], i) => {
      if (mode === "overlap" && i > 0) {
        // invoke before the previous grant completed: re-order the last two ops
        const last = h.ops.pop()!;
        h.acquire(t, p);
        h.ops.push(last);
        h.ops.forEach((o, k) => {
          o.index = k;
        });
      } else h.acquire(t, p);
      h.granted(t + 1, p, `${p}:${i}`, token);
      t += 2;
    });
    return h.ops;
  }

  it("accepts strictly increasing tokens", () => {
    expect(
      run(
        createTokenOrderChecker,
        grants([
          [1, 1n, "serial"],
          [2, 2n, "serial"],
          [3, 2n ** 64n, "serial"],
        ]),
      ).valid,
    ).toBe(true);
  });

  it("flags a lower token after a completed grant", () => {
    const v = run(
      createTokenOrderChecker,
      grants([
        [1, 9n, "serial"],
        [2, 3n, "serial"],
      ]),
    );
    expect(v.valid).toBe(false);
    expect(v.anomalies[0]).toMatchObject({ kind: "token-not-increasing", ops: [3, 1] });
  });

  it("allows a lower token for overlapping acquires, but never a reused one", () => {
    expect(
      run(
        createTokenOrderChecker,
        grants([
          [1, 9n, "serial"],
          [2, 3n, "overlap"],
        ]),
      ).valid,
    ).toBe(true);
    const v = run(
      createTokenOrderChecker,
      grants([
        [1, 9n, "serial"],
        [2, 9n, "overlap"],
      ]),
    );
    expect(v.valid).toBe(false);
    expect(v.anomalies[0]!.kind).toBe("token-reuse");
    expect(v.anomalies[0]!.explanation).toContain("token 9 to two grants");
  });

  /**
   * Client 0 took the lease at about 114 ms and froze before taking its token (SET NX, then
   * INCR); client 1 took the expired lease at 1,207 ms with token 2; client 0 woke at 1,619 ms
   * and took token 3 while client 1 still held the lease (a real run of simple-redis-mutex).
   */
  function pausedBetweenSetAndIncr(o: {
    ttl?: boolean;
    releaseAt?: number;
    wakeAt?: number;
    fault?: string;
  }) {
    const h = build();
    const ask = (ms: number, p: number) => (o.ttl === false ? h.acquire(ms, p) : h.acquireFor(ms, p, 1000));
    ask(113.5, 0);
    if (o.fault !== undefined) h.nemesis(1000, "clock-jump", o.fault);
    ask(1202.4, 1);
    h.granted(1207.7, 1, "1:0", 2n);
    if (o.releaseAt !== undefined) h.release(o.releaseAt, 1, "1:0");
    const woke = h.granted(o.wakeAt ?? 1619.3, 0, "0:1", 3n);
    return { ops: h.ops, woke };
  }

  it("flags a token taken while another client's lease was certainly held, higher than its", () => {
    const { ops, woke } = pausedBetweenSetAndIncr({});
    const v = run(createTokenOrderChecker, ops);
    expect(v.valid).toBe(false);
    expect(v.anomalies[0]).toMatchObject({ kind: "token-inverted", ops: [woke, 2] });
    expect(v.anomalies[0]!.explanation).toContain("client 0's grant must have come before client 1's");
    expect(v.stats.tokenInversions).toBe(1);
  });

  it("does not, once that lease may have ended: released, run out, unknown or made unsure", () => {
    for (const o of [
      { releaseAt: 1500 }, // client 1 released first: client 0's grant may have come after
      { wakeAt: 2195 }, // 1202.4 + 1000 ms less the slack (1 ms + 1%): the lease may be gone
      { ttl: false }, // no lease time in the history: nothing to go on
      { fault: "server:0" }, // a server clock jump can end a lease early
    ])
      expect(run(createTokenOrderChecker, pausedBetweenSetAndIncr(o).ops).valid, JSON.stringify(o)).toBe(
        true,
      );
    // A client's own faults do not touch the server's lease.
    expect(run(createTokenOrderChecker, pausedBetweenSetAndIncr({ fault: "client:1" }).ops).valid).toBe(
      false,
    );
  });

  it("flags the lower token of two overlapping grants that both held within the lease", () => {
    const h = build();
    h.acquireFor(0, 0, 1000);
    h.acquireFor(100, 1, 1000);
    const higher = h.granted(150, 0, "0:0", 7n);
    const lower = h.granted(200, 1, "1:0", 6n);
    const v = run(createTokenOrderChecker, h.ops);
    expect(v.anomalies[0]).toMatchObject({ kind: "token-inverted", ops: [lower, higher] });
  });
});

describe("liveness", () => {
  it("measures latency, success ratio, a jam that ends, and lease overlap", () => {
    const h = build();
    h.acquire(0, 1);
    h.granted(4, 1, "1:0");
    h.acquire(5, 2);
    h.granted(7, 2, "2:0"); // both hold from 7 ms
    h.nemesis(10, "crash", "client:1", "invoke"); // overlap ends; jam starts
    h.nemesis(10, "crash", "client:1", "info"); // completion of the same fault: not a second crash
    h.acquire(11, 3);
    h.denied(12, 3);
    h.release(20, 2, "2:0");
    h.released(21, 2, "2:0");
    h.acquire(30, 3);
    h.granted(40, 3, "3:1"); // jam ends at 40 ms
    const v = run(createLivenessChecker, h.ops);
    expect(v.valid).toBe(true);
    expect(v.stats).toMatchObject({
      acquires: 4,
      acquiresOk: 3,
      acquiresFailed: 1,
      successRatio: 0.75,
      acquireLatencyP50Ms: 4,
      acquireLatencyP99Ms: 10,
      jams: 1,
      jammedMsTotal: 30,
      stillJammed: false,
      leaseOverlapMs: 3,
    });
    expect(v.anomalies).toEqual([expect.objectContaining({ kind: "jam", ops: [4, 11], time: 10_000_000 })]);
  });

  it("reports a lock still jammed at the end", () => {
    const h = build();
    h.acquire(0, 1);
    h.granted(1, 1, "1:0");
    h.nemesis(5, "crash", "client:1");
    h.acquire(6, 2);
    h.denied(7, 2);
    const v = run(createLivenessChecker, h.ops);
    expect(v.stats).toMatchObject({ jams: 1, jammedMsTotal: 2, stillJammed: true });
    expect(v.anomalies[0]!.explanation).toContain("still held by the dead client");
  });

  it("a crash of a client that holds nothing is not a jam", () => {
    const h = build();
    h.acquire(0, 1);
    h.granted(1, 1, "1:0");
    h.release(2, 1, "1:0");
    h.released(3, 1, "1:0");
    h.nemesis(5, "crash", "client:1");
    expect(run(createLivenessChecker, h.ops).stats.jams).toBe(0);
  });
});

describe("formatMs", () => {
  it("prints milliseconds to the microsecond without trailing zeros", () => {
    expect([150e6, 12.5e6, 1000, 26_114_178, 100, 0].map(formatMs)).toEqual([
      "150 ms",
      "12.5 ms",
      "0.001 ms",
      "26.114 ms",
      "0 ms",
      "0 ms",
    ]);
  });
});
