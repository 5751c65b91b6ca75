// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these tests are about Compose's ${…} interpolation
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { interpolate, parseTopology } from "../../src/real/docker/compose.js";
import { dockerDir, shippedComposeFile, topologyFor } from "../../src/real/docker/topology.js";

describe("interpolate", () => {
  const vars = (name: string): string | undefined => ({ SET: "value", EMPTY: "" })[name];

  it("substitutes the Compose forms lockcheck supports", () => {
    expect(interpolate("${SET}", vars)).toEqual({ ok: true, value: "value" });
    expect(interpolate("$SET/x", vars)).toEqual({ ok: true, value: "value/x" });
    expect(interpolate("${UNSET:-redis:7}", vars)).toEqual({ ok: true, value: "redis:7" });
    expect(interpolate("${EMPTY:-fallback}", vars)).toEqual({ ok: true, value: "fallback" });
    expect(interpolate("${EMPTY-fallback}", vars)).toEqual({ ok: true, value: "" });
    expect(interpolate("${UNSET-fallback}", vars)).toEqual({ ok: true, value: "fallback" });
    expect(interpolate("cost: $$5", vars)).toEqual({ ok: true, value: "cost: $5" });
  });

  it("names a variable that has neither a value nor a default", () => {
    expect(interpolate("image: ${NOPE}", vars)).toEqual({ ok: false, error: "NOPE" });
  });
});

describe("the shipped Compose files", () => {
  // The defaults show only when no override is in the environment (CI sets them for its images).
  beforeEach(() => {
    vi.stubEnv("LOCKCHECK_REDIS_IMAGE", "");
    vi.stubEnv("LOCKCHECK_ETCD_IMAGE", "");
  });
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  const cases = [
    { file: "compose.redis.yml", kind: "redis", servers: 1 },
    { file: "compose.redlock.yml", kind: "redis", servers: 5 },
    { file: "compose.etcd.yml", kind: "etcd", servers: 3 },
  ] as const;

  for (const c of cases) {
    it(`${c.file}: ${c.servers} ${c.kind} server(s) and the resource, default public images`, () => {
      const t = topologyFor(c.kind, c.servers, {});
      expect(t.ok).toBe(true);
      if (!t.ok) return;
      expect(t.value.file).toBe(join(dockerDir(), c.file));
      expect(t.value.services.map((s) => s.node)).toEqual([
        ...Array.from({ length: c.servers }, (_, i) => `server:${i}`),
        "resource",
      ]);
      for (const s of t.value.services.filter((x) => x.node !== "resource")) {
        expect(s.probe).toBe(c.kind);
        expect(s.image).toBe(c.kind === "redis" ? "redis:7" : "gcr.io/etcd-development/etcd:v3.5.17");
      }
      const resource = t.value.services.at(-1)!;
      expect(resource).toMatchObject({ probe: "redis", containerPort: 6379, image: "redis:7" });
    });
  }

  it("take image overrides from options over the environment", () => {
    const t = topologyFor("etcd", 3, { images: { redis: "mine/redis:1", etcd: "mine/etcd:2" } });
    expect(t.ok && t.value.services.map((s) => s.image)).toEqual([
      "mine/etcd:2",
      "mine/etcd:2",
      "mine/etcd:2",
      "mine/redis:1",
    ]);
  });

  it("give etcd members peer URLs by service name and the process backend's raft timing", () => {
    const t = topologyFor("etcd", 3, {});
    if (!t.ok) throw new Error(t.error.message);
    const args = t.value.services[1]!.command;
    expect(args[0]).toBe("etcd");
    expect(args).toContain("--initial-advertise-peer-urls=http://server-1:2380");
    expect(args).toContain(
      "--initial-cluster=server-0=http://server-0:2380,server-1=http://server-1:2380,server-2=http://server-2:2380",
    );
    expect(args).toContain("--heartbeat-interval=50");
    expect(args).toContain("--election-timeout=500");
  });

  it("run Redis lock servers without persistence (a restart comes back empty) and a durable resource", () => {
    for (const [kind, servers] of [
      ["redis", 1],
      ["redis", 5],
      ["etcd", 3],
    ] as const) {
      const t = topologyFor(kind, servers, {});
      if (!t.ok) throw new Error(t.error.message);
      for (const s of t.value.services) {
        const cmd = s.command.join(" ");
        if (s.node === "resource") expect(cmd).toContain("--appendonly yes --appendfsync always");
        else if (kind === "redis") expect(cmd).toContain("--appendonly no");
        if (s.probe === "redis") expect(s.command[s.command.indexOf("--save") + 1]).toBe("");
      }
    }
  });
});

describe("topology errors", () => {
  it("a server count no shipped file has is an input error that points at --compose", () => {
    const r = shippedComposeFile("redis", 3);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error.field).toBe("options.servers");
      expect(r.error.message).toContain("1 or 5 redis server(s), not 3");
      expect(r.error.message).toContain("--compose");
    }
  });

  it("a Compose file whose server count differs from the schedule's is refused", () => {
    const file = join(dockerDir(), "compose.redlock.yml");
    const r = topologyFor("redis", 1, { composeFile: file });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.message).toContain("has 5 lock server(s); the schedule runs 1");
  });

  const base = readFileSync(join(dockerDir(), "compose.redis.yml"), "utf8");

  it("a missing resource, a gap in server numbers and a duplicate node are located", () => {
    const noResource = parseTopology(base.replace("node: resource", 'node: "server:1"'), "f.yml");
    expect(noResource.ok).toBe(false);
    if (!noResource.ok) expect(noResource.error.message).toContain("no service plays the resource");

    const gap = parseTopology(base.replace('node: "server:0"', 'node: "server:1"'), "f.yml");
    expect(gap.ok).toBe(false);
    if (!gap.ok) expect(gap.error.message).toContain("server:0 is missing");

    const dup = parseTopology(base.replace("node: resource", 'node: "server:0"'), "f.yml");
    expect(dup.ok).toBe(false);
    if (!dup.ok) expect(dup.error.message).toBe("two services play server:0");
  });

  const minimal = (command: string): string =>
    [
      "services:",
      "  server-0:",
      "    image: redis:7",
      `    command: ${command}`,
      '    x-lockcheck: { node: "server:0", port: 6379, probe: redis }',
      "  resource:",
      "    image: redis:7",
      '    command: ["redis-server"]',
      "    x-lockcheck: { node: resource, port: 6379, probe: redis }",
    ].join("\n");

  it("a command given as one string is refused (lockcheck does not shell-split)", () => {
    expect(parseTopology(minimal('["redis-server", "--port", "6379"]'), "f.yml").ok).toBe(true);
    const r = parseTopology(minimal('"redis-server --port 6379"'), "f.yml");
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error.field).toBe("services.server-0.command");
      expect(r.error.message).toContain("list of arguments");
    }
  });

  it("an unquoted number in a command is located (YAML would make it a number, not an argument)", () => {
    const r = parseTopology(minimal('["redis-server", "--port", 6379]'), "f.yml");
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.field).toBe("services.server-0.command.2");
  });

  it("a service without an x-lockcheck role is refused", () => {
    const text = `${base}\n  extra:\n    image: busybox\n    command: ["true"]\n`;
    const r = parseTopology(text, "f.yml");
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.field).toBe("services.extra.x-lockcheck");
  });

  it("a variable without a default that is unset is named with its place", () => {
    const text = base.replace("${LOCKCHECK_REDIS_IMAGE:-redis:7}", "${LOCKCHECK_TEST_UNSET_IMAGE}");
    const r = parseTopology(text, "f.yml");
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.message).toContain("${LOCKCHECK_TEST_UNSET_IMAGE} is not set");
  });

  it("YAML syntax errors are input errors with the file", () => {
    const r = parseTopology("services: [unclosed", "bad.yml");
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error.file).toBe("bad.yml");
      expect(r.error.message).toContain("not valid YAML");
    }
  });
});
