/**
 * A cluster answer of the wrong kind (a simulator bug) fails the client loudly instead of
 * reaching lock code as a result of another operation.
 */
import { describe, expect, it } from "vitest";
import type { EtcdRes } from "../../src/sim/servers/etcd.js";
import { prepareSimulation } from "../../src/sim/simulate.js";
import { probe, scheduleOf } from "./helpers.js";

describe("cluster answers", () => {
  it("are checked against the command: a get answered as a lease grant fails the run", async () => {
    let got: unknown = "not called";
    const alg = probe("etcd", async (env) => {
      got = await env.etcd!.get("/k");
    });
    const sim = prepareSimulation(scheduleOf({ servers: 3 }), alg);
    const cluster = sim.world.etcd!.cluster;
    const submit = cluster.submit;
    cluster.submit = (member, cmd, answer, arg) => {
      if (cmd.op !== "get") return submit(member, cmd, answer, arg);
      const wrong: EtcdRes = { op: "lease-grant", leaseId: "1", ttlMs: 1000 } as EtcdRes;
      answer(arg, { kind: "done", value: wrong });
    };
    const failure = await sim.run().then(
      () => null,
      (e: unknown) => e,
    );
    expect(failure).toBeInstanceOf(Error);
    expect(String((failure as Error).cause)).toMatch(/get answered with lease-grant/);
    expect(got).toBe("not called");
  });

  it("of the right kind reach the client", async () => {
    let got: unknown;
    const alg = probe("etcd", async (env) => {
      got = await env.etcd!.get("/k");
    });
    await prepareSimulation(scheduleOf({ servers: 3 }), alg).run();
    expect(got).toEqual({ ok: true, value: null });
  });
});
