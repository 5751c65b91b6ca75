/** The pure rules of the docker backend: what it refuses, which member a partition isolates, which engine it talks to. */
import { describe, expect, it } from "vitest";
import { engineAddress } from "../../src/real/docker/engine.js";
import { checkScheduleForDocker } from "../../src/real/docker/validate.js";
import { memberToIsolate } from "../../src/real/docker/world.js";
import type { Fault, Schedule } from "../../src/schedule/schedule.js";

function scheduleWith(faults: Fault[]): Schedule {
  return {
    version: 1,
    target: "redis:redlock",
    resource: "unfenced",
    seed: 1,
    options: {
      lockName: "lock",
      ttlMs: 1000,
      callTimeoutMs: 100,
      horizonMs: 2000,
      latencyMs: { min: 0, max: 0 },
      lossRate: 0,
      servers: 5,
    },
    clients: [{ id: 0, cycles: [{ thinkMs: 0, holdMs: 10, writes: 1 }] }],
    faults,
  };
}

describe("checkScheduleForDocker", () => {
  it("rejects every clock fault on a server or the resource, located, saying why", () => {
    const r = checkScheduleForDocker(
      scheduleWith([
        { kind: "pause", node: "server:0", at: 0, durationMs: 10 },
        { kind: "clock-jump", node: "server:2", at: 250, deltaMs: 10_000 },
        { kind: "clock-drift", node: "resource", at: 0, rate: 0.5 },
        { kind: "clock-jump", node: "server:leader", at: 1, deltaMs: -5 },
      ]),
      "s.json",
    );
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error.map((e) => e.field)).toEqual(["faults[1]", "faults[2]", "faults[3]"]);
    expect(r.error[0]).toMatchObject({ file: "s.json" });
    expect(r.error[0]!.message).toContain("clock-jump of server:2 cannot run with --cluster docker");
    expect(r.error[0]!.message).toContain("containers share the host's clock");
  });

  it("accepts clock faults on clients (host processes) and every other fault kind", () => {
    const r = checkScheduleForDocker(
      scheduleWith([
        { kind: "clock-jump", node: "client:0", at: 0, deltaMs: 500 },
        { kind: "clock-drift", node: "client:0", at: 0, rate: 0.2 },
        { kind: "pause", node: "server:leader", at: 0, durationMs: 10 },
        { kind: "crash", node: "server:1", at: 0, restartAfterMs: 10 },
        { kind: "partition", at: 0, durationMs: 10, a: ["server:0"], b: ["server:1"], oneWay: false },
        { kind: "delay", from: "client:0", to: "server:0", at: 0, durationMs: 10, extraMs: 5 },
        { kind: "pause-at", client: 0, checkpoint: "acquired", occurrence: 0, durationMs: 10 },
      ]),
    );
    expect(r).toEqual({ ok: true, value: undefined });
  });
});

describe("memberToIsolate", () => {
  const all = ["server:0", "server:1", "server:2"];

  it("isolates the single member when the other side holds every other member", () => {
    expect(memberToIsolate("etcd", all, ["server:1"], ["server:0", "server:2"])).toEqual({
      member: "server:1",
    });
    expect(memberToIsolate("etcd", all, ["server:0", "server:2"], ["server:1"])).toEqual({
      member: "server:1",
    });
    // The resolved leader may appear on both sides (a=[leader], b=[every server]).
    expect(memberToIsolate("etcd", all, ["server:2"], ["server:0", "server:1", "server:2"])).toEqual({
      member: "server:2",
    });
  });

  it("refuses a split isolation cannot make exactly", () => {
    const r = memberToIsolate("etcd", all, ["server:0"], ["server:1"]);
    expect("unsupported" in r && r.unsupported).toContain("server:0 | server:1 is not such a split");
    const five = ["server:0", "server:1", "server:2", "server:3", "server:4"];
    expect(
      "unsupported" in
        memberToIsolate("etcd", five, ["server:0", "server:1"], ["server:2", "server:3", "server:4"]),
    ).toBe(true);
  });

  it("has nothing to cut between Redis servers (they never talk to each other)", () => {
    expect(memberToIsolate("redis", all, ["server:0"], ["server:1"])).toEqual({ member: null });
  });
});

describe("engineAddress", () => {
  it("uses a unix socket or loopback tcp, and refuses a remote engine with the reason", () => {
    expect(engineAddress("unix:///run/x.sock")).toMatchObject({
      ok: true,
      value: { options: { socketPath: "/run/x.sock" } },
    });
    expect(engineAddress("tcp://127.0.0.1:2375")).toMatchObject({
      ok: true,
      value: { options: { host: "127.0.0.1", port: 2375 } },
    });
    const remote = engineAddress("tcp://10.1.2.3:2375");
    expect(remote.ok).toBe(false);
    if (!remote.ok) expect(remote.error).toContain("ports published on 127.0.0.1");
    expect(engineAddress("unix://").ok).toBe(false);
  });

  it("defaults to the standard socket", () => {
    const r = engineAddress("");
    expect(r.ok && r.value.display).toMatch(/^unix:\/\/.*docker\.sock$/);
  });
});
