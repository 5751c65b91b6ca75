import type Docker from "dockerode";
import { describe, expect, it } from "vitest";
import { removeObjects } from "../../src/real/docker/cleanup.js";
import { LABEL_LOCKCHECK, LABEL_RUN } from "../../src/real/docker/labels.js";

/** An engine holding one run's container and network, whose network keeps an endpoint for a while. */
function fakeEngine(opts: { lingeringEndpointTries: number; strangerAttached?: boolean }) {
  const labels = { [LABEL_LOCKCHECK]: "1", [LABEL_RUN]: "r1" };
  const calls: string[] = [];
  let containerGone = false;
  let lingering = opts.lingeringEndpointTries;
  let stranger = opts.strangerAttached === true;
  const activeEndpoints = () =>
    Object.assign(
      new Error("(HTTP code 403) unexpected - error while removing network: has active endpoints"),
      {
        statusCode: 403,
      },
    );
  const docker = {
    listContainers: async () =>
      containerGone ? [] : [{ Id: "c1", Names: ["/lc-c1"], Labels: labels, State: "running" }],
    listNetworks: async () => [{ Id: "n1", Name: "lc-peers", Labels: labels }],
    getContainer: () => ({
      unpause: async () => {},
      remove: async () => {
        calls.push("remove container");
        containerGone = true;
      },
    }),
    getNetwork: () => ({
      remove: async () => {
        calls.push("remove network");
        if (stranger || lingering > 0) {
          lingering--;
          throw activeEndpoints();
        }
      },
      inspect: async () => ({ Containers: stranger ? { s1: {} } : {} }),
      disconnect: async ({ Container }: { Container: string }) => {
        calls.push(`disconnect ${Container}`);
        stranger = false;
      },
    }),
  };
  return { docker: docker as unknown as Docker, calls };
}

describe("removeObjects", () => {
  it("retries a network whose endpoint outlives its container, and reports it removed", async () => {
    const { docker, calls } = fakeEngine({ lingeringEndpointTries: 3 });
    const report = await removeObjects(docker, { runId: "r1", includeLive: true });
    expect(report.failures).toEqual([]);
    expect(report.removed.map((o) => o.kind).sort()).toEqual(["container", "network"]);
    expect(calls.filter((c) => c === "remove network")).toHaveLength(4);
    expect(calls[0]).toBe("remove container");
  });

  it("disconnects a container still attached to the run's network before removing it", async () => {
    const { docker, calls } = fakeEngine({ lingeringEndpointTries: 0, strangerAttached: true });
    const report = await removeObjects(docker, { runId: "r1", includeLive: true });
    expect(report.failures).toEqual([]);
    expect(calls).toContain("disconnect s1");
  });

  it("gives up after a bounded number of tries and reports the engine's reason", async () => {
    const { docker } = fakeEngine({ lingeringEndpointTries: 1_000 });
    const report = await removeObjects(docker, { runId: "r1", includeLive: true });
    expect(report.failures).toHaveLength(1);
    expect(report.failures[0]?.error).toMatch(/active endpoints/);
  }, 20_000);
});
