/**
 * The fault descriptors (src/schedule/faults/): one per kind of the schedule schema, and the
 * moves they give the shrinker keep faults valid and make them strictly lighter.
 */
import { describe, expect, it } from "vitest";
import { descriptorOf, FAULT_DESCRIPTORS } from "../../src/schedule/faults/index.js";
import { type Fault, faultSchema } from "../../src/schedule/schedule.js";

const SAMPLES: Fault[] = [
  { kind: "pause", node: "client:1", at: 300, durationMs: 900 },
  { kind: "pause-at", client: 1, checkpoint: "acquired", occurrence: 2, afterMs: 40, durationMs: 900 },
  { kind: "pause-in-call", client: 2, call: "write", occurrence: 1, afterMs: 5, durationMs: 700 },
  { kind: "crash", node: "server:0", at: 250, restartAfterMs: 400 },
  {
    kind: "partition",
    at: 100,
    durationMs: 500,
    a: ["client:0", "server:1"],
    b: ["server:0", "server:2"],
    oneWay: false,
  },
  {
    kind: "partition-at",
    client: 2,
    checkpoint: "before-write",
    occurrence: 3,
    durationMs: 2000,
    nodes: ["server:0", "server:1", "client:1"],
  },
  { kind: "clock-jump", node: "server:1", at: 50, deltaMs: -800 },
  { kind: "clock-drift", node: "client:0", at: 20, rate: 0.25 },
  { kind: "delay", from: "client:1", to: "server:0", at: 10, durationMs: 600, extraMs: 120 },
  {
    kind: "delay-at",
    client: 2,
    checkpoint: "before-write",
    occurrence: 3,
    afterMs: 20,
    node: "resource",
    direction: "out",
    durationMs: 800,
    extraMs: 300,
  },
];

describe("fault descriptors", () => {
  it("cover every kind of the fault schema, each with that kind's schema", () => {
    const kinds = faultSchema.options.map((o) => o.shape.kind.value).sort();
    expect(Object.keys(FAULT_DESCRIPTORS).sort()).toEqual(kinds);
    for (const option of faultSchema.options) {
      const d = FAULT_DESCRIPTORS[option.shape.kind.value];
      expect(d.kind).toBe(option.shape.kind.value);
      expect(d.schema).toBe(option);
    }
    expect(SAMPLES.map((f) => f.kind).sort()).toEqual(kinds);
  });

  it.each(SAMPLES)("$kind: every smaller variant is valid, differs and weighs less", (f) => {
    const d = descriptorOf(f);
    const variants = [...d.smaller(f)];
    expect(variants.length).toBeGreaterThan(0);
    for (const g of variants) {
      expect(faultSchema.safeParse(g).success).toBe(true);
      expect(g).not.toEqual(f);
      expect(d.magnitude(g)).toBeLessThan(d.magnitude(f));
    }
  });

  it.each(SAMPLES)("$kind: dropping client 1 removes or renumbers its references", (f) => {
    const d = descriptorOf(f);
    const g = d.remapClients(f, {
      node: (ref) => (ref === "client:1" ? null : ref === "client:2" ? "client:1" : ref),
      client: (id) => (id === 1 ? null : id > 1 ? id - 1 : id),
    });
    if (g === null) {
      expect(d.nodes(f)).toContain("client:1");
      return;
    }
    expect(faultSchema.safeParse(g).success).toBe(true);
    expect(d.nodes(g)).not.toContain("client:2");
    expect(d.nodes(g).filter((n) => n === "client:1").length).toBe(
      d.nodes(f).filter((n) => n === "client:2").length,
    );
  });

  it("say how long each kind stays in effect once started", () => {
    expect(SAMPLES.map((f) => [f.kind, descriptorOf(f).effectMs(f)])).toEqual([
      ["pause", 900],
      ["pause-at", 900],
      ["pause-in-call", 700],
      ["crash", 400],
      ["partition", 500],
      ["partition-at", 2000],
      ["clock-jump", 0],
      ["clock-drift", 0],
      ["delay", 600],
      ["delay-at", 800],
    ]);
    // A partition-at's recorded start is its own, not a timed partition's of the same length.
    const cut = SAMPLES.find((f) => f.kind === "partition-at")!;
    const start = {
      f: "partition",
      value: {
        a: ["client:2"],
        b: ["server:0"],
        oneWay: false,
        durationMs: 2000,
        checkpoint: "before-write",
        occurrence: 3,
      },
    };
    expect(descriptorOf(cut).startedBy?.(cut, start)).toBe(true);
    expect(
      descriptorOf(cut).startedBy?.(cut, { ...start, value: { ...start.value, occurrence: 2 } }),
    ).toBeUndefined();
    // One that starts afterMs after the checkpoint is told apart from one at the checkpoint.
    const later: Fault = { ...cut, afterMs: 120 } as Fault;
    const laterStart = { ...start, value: { ...start.value, afterMs: 120 } };
    expect(descriptorOf(later).startedBy?.(later, laterStart)).toBe(true);
    expect(descriptorOf(later).startedBy?.(later, start)).toBeUndefined();
    expect(descriptorOf(cut).startedBy?.(cut, laterStart)).toBeUndefined();
    const pause = SAMPLES.find((f) => f.kind === "pause-at")!;
    const pauseStart = {
      f: "pause",
      node: "client:1",
      value: { checkpoint: "acquired", occurrence: 2, afterMs: 40, durationMs: 900 },
    };
    expect(descriptorOf(pause).startedBy?.(pause, pauseStart)).toBe(true);
    const { afterMs: _a, ...atCheckpoint } = pauseStart.value;
    expect(descriptorOf(pause).startedBy?.(pause, { ...pauseStart, value: atCheckpoint })).toBeUndefined();
    const timed: Fault = {
      kind: "partition",
      at: 5,
      durationMs: 2000,
      a: ["client:2"],
      b: ["server:0"],
      oneWay: false,
    };
    expect(descriptorOf(timed).startedBy?.(timed, start)).toBeUndefined();
    const { checkpoint: _, occurrence: __, ...timedStart } = start.value;
    expect(descriptorOf(timed).startedBy?.(timed, { ...start, value: timedStart })).toBe(true);
    const forGood: Fault = { kind: "crash", node: "server:0", at: 0, restartAfterMs: null };
    expect(descriptorOf(forGood).effectMs(forGood)).toBe(Number.POSITIVE_INFINITY);
  });

  describe("delay-at", () => {
    type DelayAt = Extract<Fault, { kind: "delay-at" }>;
    const slow = SAMPLES.find((f): f is DelayAt => f.kind === "delay-at")!;
    const d = FAULT_DESCRIPTORS["delay-at"];
    const start = {
      f: "delay",
      node: "client:2",
      value: {
        from: "client:2",
        to: "resource",
        extraMs: 300,
        durationMs: 800,
        checkpoint: "before-write",
        occurrence: 3,
        afterMs: 20,
      },
    };

    it("names a link of its client: the other end is never a client", () => {
      expect(faultSchema.safeParse({ ...slow, node: "server:leader", direction: "in" }).success).toBe(true);
      expect(faultSchema.safeParse({ ...slow, node: "client:1" }).success).toBe(false);
      expect(faultSchema.safeParse({ ...slow, direction: "both" }).success).toBe(false);
      expect(faultSchema.safeParse({ ...slow, extraMs: 0 }).success).toBe(false);
      expect(d.nodes(slow)).toEqual(["client:2", "resource"]);
      expect(d.targetClient(slow)).toBe(2);
      expect(d.counted).toBe(true);
    });

    it("fits fewer clients by folding its client; one whose node is a client is dropped", () => {
      expect(d.fit(slow, 2)).toEqual({ ...slow, client: 0 });
      expect(d.fit({ ...slow, node: "client:0" }, 2)).toBeNull();
      expect(d.fit({ ...slow, node: "client:4" }, 2)).toBeNull();
    });

    it("follows its client when clients are dropped or renumbered, and goes with a dropped one", () => {
      const drop = (gone: number) => ({
        node: (ref: string) => (ref === `client:${gone}` ? null : ref),
        client: (id: number) => (id === gone ? null : id > gone ? id - 1 : id),
      });
      expect(d.remapClients(slow, drop(0))).toEqual({ ...slow, client: 1 });
      expect(d.remapClients(slow, drop(2))).toBeNull();
    });

    it("shrinks extraMs first, then durationMs, occurrence and afterMs; perturbed, its extraMs shrinks by the margin", () => {
      const variants = [...d.smaller(slow)];
      expect(variants[0]).toEqual({ ...slow, extraMs: 1 });
      expect(variants.some((v) => v.durationMs < slow.durationMs && v.extraMs === slow.extraMs)).toBe(true);
      expect(variants.some((v) => v.occurrence === 0)).toBe(true);
      const { afterMs: _, ...atCheckpoint } = slow;
      expect(variants).toContainEqual(atCheckpoint);
      expect(d.perturbed(slow, 50)).toEqual([{ ...slow, extraMs: 250 }]);
    });

    it("knows its recorded start from a timed delay's, and from another checkpoint's or link's", () => {
      expect(d.startedBy(slow, start)).toBe(true);
      expect(d.startedBy(slow, { ...start, value: { ...start.value, unsupported: "not proxied" } })).toBe(
        false,
      );
      expect(d.startedBy(slow, { ...start, value: { ...start.value, occurrence: 2 } })).toBeUndefined();
      const { afterMs: _, ...atCheckpointValue } = start.value;
      expect(d.startedBy(slow, { ...start, value: atCheckpointValue })).toBeUndefined();
      const reply = { ...start, value: { ...start.value, from: "resource", to: "client:2" } };
      expect(d.startedBy(slow, reply)).toBeUndefined();
      expect(d.startedBy({ ...slow, direction: "in" }, reply)).toBe(true);
      const timed: Fault = {
        kind: "delay",
        from: "client:2",
        to: "resource",
        at: 5,
        durationMs: 800,
        extraMs: 300,
      };
      expect(descriptorOf(timed).startedBy?.(timed, start)).toBeUndefined();
      const { checkpoint: __, occurrence: ___, afterMs: ____, ...timedStart } = start.value;
      expect(descriptorOf(timed).startedBy?.(timed, { ...start, value: timedStart })).toBe(true);
      expect(d.startedBy(slow, { ...start, value: timedStart })).toBeUndefined();
    });
  });
});
