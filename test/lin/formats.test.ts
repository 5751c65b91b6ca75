/** Reading histories for the linearizability checker: Porcupine's logs, Jepsen EDN, lockcheck ops. */
import { describe, expect, it } from "vitest";
import { callsFromHistory, callsFromJepsen } from "../../src/checkers/linearizable/lin-calls.js";
import {
  checkCallsLinearizable,
  checkHistoryLinearizable,
  decodeCasCall,
  decodeKvCall,
  decodeLockCall,
  linOpsFromCalls,
} from "../../src/checkers/linearizable/lin-models.js";
import { looksLikeJepsenLog, parseJepsenEtcdLog } from "../../src/checkers/linearizable/porcupine.js";
import { parseJepsenEdn } from "../../src/formats/jepsen-edn.js";
import type { Op } from "../../src/history/op.js";

const INF = Number.POSITIVE_INFINITY;

describe("parseJepsenEtcdLog (Porcupine's etcd corpus format)", () => {
  const log = [
    "INFO  jepsen.util - 0\t:invoke\t:write\t3",
    "some other log line",
    "INFO  jepsen.util - 1\t:invoke\t:read\tnil",
    "INFO  jepsen.util - 0\t:ok\t:write\t3",
    "INFO  jepsen.util - 1\t:ok\t:read\t3",
    "INFO  jepsen.util - 2\t:invoke\t:cas\t[3 4]",
    "INFO  jepsen.util - 2\t:fail\t:cas\t[3 4]",
    "INFO  jepsen.util - 3   :invoke :read   nil",
    "INFO  jepsen.util - 3   :fail   :read   :timed-out",
    "INFO  jepsen.util - 4\t:invoke\t:write\t1",
    "INFO  jepsen.util - 4\t:info\t:write\t:timed-out",
  ].join("\n");

  it("reads calls with Porcupine's meaning of :fail and :info; positions are 0-based lines", () => {
    expect(looksLikeJepsenLog(log)).toBe(true);
    const r = parseJepsenEtcdLog(log);
    expect(r).toEqual({
      ok: true,
      value: [
        {
          process: 0,
          call: 0,
          ret: 3,
          input: { f: "write", value: 3 },
          output: { f: "write" },
          refs: [0, 3],
        },
        { process: 1, call: 2, ret: 4, input: { f: "read" }, output: { f: "read", value: 3 }, refs: [2, 4] },
        // A failed cas answered "no": the register did not hold 3.
        {
          process: 2,
          call: 5,
          ret: 6,
          input: { f: "cas", from: 3, to: 4 },
          output: { f: "cas", ok: false },
          refs: [5, 6],
        },
        // A timed-out read: returned, result unknown.
        { process: 3, call: 7, ret: 8, input: { f: "read" }, output: undefined, refs: [7, 8] },
        // :info leaves the call open: it may take effect later or never.
        { process: 4, call: 9, ret: INF, input: { f: "write", value: 1 }, output: undefined, refs: [9] },
      ],
    });
  });

  it("rejects malformed lines and unmatched completions, naming the line", () => {
    expect(parseJepsenEtcdLog("INFO  jepsen.util - 0\t:invoke\t:frob\t3")).toMatchObject({
      ok: false,
      error: { line: 1, message: expect.stringMatching(/unrecognised/) },
    });
    expect(parseJepsenEtcdLog("\nINFO  jepsen.util - 0\t:ok\t:write\t3")).toMatchObject({
      ok: false,
      error: { line: 2, message: expect.stringMatching(/without an open invoke/) },
    });
    expect(parseJepsenEtcdLog("INFO  jepsen.util - 0\t:invoke\t:cas\t[3]")).toMatchObject({
      ok: false,
      error: { line: 1, message: expect.stringMatching(/\[from to\]/) },
    });
  });
});

describe("parseJepsenEdn", () => {
  it("reads a vector of op maps, one map per line, lists and tagged records alike", () => {
    const one =
      "{:process 0, :type :invoke, :f :read, :value nil}\n{:process 0, :type :ok, :f :read, :value 1}";
    const forms = [
      `[${one}]`,
      one,
      `(${one})`,
      `#jepsen.history.Op${one.split("\n")[0]} ${one.split("\n")[1]}`,
    ];
    for (const text of forms) {
      const r = parseJepsenEdn(text);
      expect(r.ok && r.value.map((e) => [e.index, e.process, e.type, e.f, e.value])).toEqual([
        [0, 0, "invoke", "read", null],
        [1, 0, "ok", "read", 1],
      ]);
    }
  });

  it("keeps :index and :time, and keyword processes as names", () => {
    const r = parseJepsenEdn("{:index 7, :time 99, :process :nemesis, :type :info, :f :start}");
    expect(r.ok && r.value[0]).toMatchObject({
      index: 7,
      time: 99,
      process: "nemesis",
      type: "info",
      f: "start",
    });
  });

  it("rejects ops without a valid :type, :process or :f, naming the op", () => {
    expect(
      parseJepsenEdn("{:process 0, :type :invoke, :f :read} {:process 0, :type :done, :f :read}"),
    ).toMatchObject({
      ok: false,
      error: { field: "op 1", message: expect.stringMatching(/:type must be one of/) },
    });
    expect(parseJepsenEdn('[{:process "p", :type :ok, :f :read}]')).toMatchObject({
      ok: false,
      error: { message: expect.stringMatching(/:process must be/) },
    });
    expect(parseJepsenEdn("[1]")).toMatchObject({ ok: false, error: { field: "op 0" } });
    expect(parseJepsenEdn("[{:a 1}")).toMatchObject({
      ok: false,
      error: { message: expect.stringMatching(/unclosed/) },
    });
  });
});

describe("callsFromJepsen and the decoders", () => {
  const edn = (text: string) => {
    const events = parseJepsenEdn(text);
    if (!events.ok) throw new Error(events.error.message);
    return callsFromJepsen(events.value);
  };

  it("pairs invokes with completions: fail drops the call, info and unfinished calls are pending", () => {
    const calls = edn(`[
      {:process 0, :type :invoke, :f :cas, :value [1 2]}
      {:process 1, :type :invoke, :f :write, :value 5}
      {:process 0, :type :fail, :f :cas, :value [1 2]}
      {:process 1, :type :info, :f :write, :value 5}
      {:process :nemesis, :type :info, :f :start}
      {:process 2, :type :invoke, :f :read, :value nil}
      {:process 2, :type :ok, :f :read, :value 5}
      {:process 3, :type :invoke, :f :read, :value nil}]`);
    expect(calls).toEqual({
      ok: true,
      value: [
        { process: 1, f: "write", invokeIndex: 1, completeIndex: 3, pending: true, value: 5 },
        // Knossos takes an ok call's value from its completion.
        { process: 2, f: "read", invokeIndex: 5, completeIndex: 6, pending: false, value: 5 },
        { process: 3, f: "read", invokeIndex: 7, pending: true, value: null },
      ],
    });
  });

  it("rejects a second invoke while a call is open, and completions without an invoke", () => {
    expect(edn("{:process 0, :type :invoke, :f :read} {:process 0, :type :invoke, :f :read}")).toMatchObject({
      ok: false,
      error: { field: "index 1", message: expect.stringMatching(/while a call was open/) },
    });
    expect(edn("{:process 0, :type :ok, :f :read}")).toMatchObject({
      ok: false,
      error: { message: expect.stringMatching(/without an open invoke/) },
    });
    expect(edn("{:process 0, :type :invoke, :f :read} {:process 0, :type :ok, :f :write}")).toMatchObject({
      ok: false,
      error: { message: expect.stringMatching(/does not match/) },
    });
  });

  it("reads a nil read as unknown (Knossos: we don't know what the read was)", () => {
    const calls = edn(
      "{:process 0, :type :invoke, :f :read, :value nil} {:process 0, :type :ok, :f :read, :value nil}",
    );
    const ops = calls.ok ? linOpsFromCalls(calls.value, decodeCasCall) : undefined;
    expect(ops?.ok && ops.value[0]?.output).toBeUndefined();
  });

  it("names the call a model cannot read", () => {
    const calls = edn(
      "{:process 0, :type :invoke, :f :cas, :value 3} {:process 0, :type :ok, :f :cas, :value 3}",
    );
    expect(calls.ok && checkCallsLinearizable("cas-register", calls.value)).toMatchObject({
      ok: false,
      error: { field: "index 0", message: ":cas needs a value [from to]" },
    });
    const kv = edn(
      '{:process 0, :type :invoke, :f :put, :value "x"} {:process 0, :type :ok, :f :put, :value "x"}',
    );
    expect(kv.ok && linOpsFromCalls(kv.value, decodeKvCall)).toMatchObject({
      ok: false,
      error: { message: ":put needs a string or integer :key" },
    });
    const lock = edn("{:process 0, :type :invoke, :f :read} {:process 0, :type :ok, :f :read}");
    expect(lock.ok && linOpsFromCalls(lock.value, decodeLockCall)).toMatchObject({
      ok: false,
      error: { message: expect.stringMatching(/understand :acquire and :release, not :read/) },
    });
  });

  it("takes an acquire's token from :token, else from an integer :value", () => {
    const calls = edn(
      "{:process 0, :type :invoke, :f :acquire} {:process 0, :type :ok, :f :acquire, :value 7}" +
        " {:process 1, :type :invoke, :f :acquire} {:process 1, :type :ok, :f :acquire, :token 9007199254740993}",
    );
    const ops = calls.ok ? linOpsFromCalls(calls.value, decodeLockCall) : undefined;
    expect(ops?.ok && ops.value.map((o) => o.output)).toEqual([{ token: 7n }, { token: 9007199254740993n }]);
  });
});

describe("callsFromHistory (lockcheck histories)", () => {
  const history: Op[] = [
    { index: 0, time: 0, process: 1, type: "invoke", f: "acquire", lock: "L" },
    { index: 1, time: 1, process: 2, type: "invoke", f: "acquire", lock: "L" },
    { index: 2, time: 2, process: 1, type: "ok", f: "acquire", lock: "L", grant: "1:0", token: 33n },
    { index: 3, time: 3, process: 2, type: "fail", f: "acquire", lock: "L", error: "held" },
    { index: 4, time: 4, process: "nemesis", type: "info", f: "pause", node: "client:1" },
    { index: 5, time: 5, process: 1, type: "invoke", f: "write", lock: "L", grant: "1:0", token: 33n },
    {
      index: 6,
      time: 6,
      process: 1,
      type: "ok",
      f: "write",
      lock: "L",
      grant: "1:0",
      token: 33n,
      accepted: true,
    },
    { index: 7, time: 7, process: 1, type: "invoke", f: "release", lock: "L", grant: "1:0" },
    { index: 8, time: 8, process: 1, type: "info", f: "release", lock: "L", grant: "1:0", error: "timeout" },
  ];

  it("keeps lock, token and outcome; drops failures and nemesis ops; writes are not lock ops", () => {
    const calls = callsFromHistory(history);
    expect(
      calls.ok && calls.value.map((c) => [c.f, c.invokeIndex, c.completeIndex, c.pending, c.lock, c.token]),
    ).toEqual([
      ["acquire", 0, 2, false, "L", 33n],
      ["write", 5, 6, false, "L", 33n],
      ["release", 7, 8, true, "L", undefined],
    ]);
    const ops = calls.ok ? linOpsFromCalls(calls.value, decodeLockCall) : undefined;
    expect(ops?.ok && ops.value).toEqual([
      {
        process: 1,
        call: 0,
        ret: 2,
        input: { f: "acquire", process: 1, lock: "L" },
        output: { token: 33n },
        refs: [0, 2],
        time: 2,
      },
      {
        process: 1,
        call: 7,
        ret: INF,
        input: { f: "release", process: 1, lock: "L" },
        output: undefined,
        refs: [7, 8],
        time: 8,
      },
    ]);
  });

  it("is linearizable for every lock model; a second grant of the held lock is not", () => {
    for (const model of ["mutex", "owner-mutex", "fenced-mutex"] as const) {
      const v = checkHistoryLinearizable(history, model);
      expect(v.ok && v.value.valid).toBe(true);
    }
    const doubleGrant: Op[] = [
      ...history.slice(0, 4),
      { index: 9, time: 9, process: 2, type: "invoke", f: "acquire", lock: "L" },
      { index: 10, time: 10, process: 2, type: "ok", f: "acquire", lock: "L", grant: "2:1", token: 34n },
    ];
    const v = checkHistoryLinearizable(doubleGrant, "mutex");
    expect(v.ok && [v.value.valid, v.value.anomalies[0]?.ops, v.value.anomalies[0]?.time]).toEqual([
      false,
      [9, 10],
      10,
    ]);
  });
});
