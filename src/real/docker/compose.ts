/**
 * Reads a Compose file of docker/ as a topology: which containers a run starts, with which
 * image and command, and which schedule node each one is. The same files start clusters by
 * hand (`docker compose -f docker/compose.redlock.yml up`), so what a user runs and what
 * lockcheck runs cannot drift apart.
 *
 * lockcheck takes from each service only `image`, `command`, `environment` and its
 * `x-lockcheck` role ({ node, port, probe }); container names, host ports, networks and labels
 * are its own per run. Variables in the file are interpolated as Compose does for the forms
 * `${NAME}`, `${NAME:-default}`, `${NAME-default}` and `$$`, from the given values first
 * (e.g. the --redis-image option), then the environment.
 */
import { readFileSync } from "node:fs";
import { parse as parseYaml } from "yaml";
import { z } from "zod";
import { err, type InputError, ok, type Result } from "../../result.js";

export type ProbeKind = "redis" | "etcd";

/** One container of a topology. */
export interface ServiceSpec {
  /** Compose service name; also the container's DNS alias on the run's peer network. */
  readonly service: string;
  /** Schedule node it plays: "server:N" or "resource". */
  readonly node: string;
  readonly image: string;
  readonly command: readonly string[];
  readonly environment: Readonly<Record<string, string>>;
  /** The port inside the container that clients connect to. */
  readonly containerPort: number;
  /** How lockcheck checks from outside that it answers. */
  readonly probe: ProbeKind;
}

/** Servers in node order (server:0 first), then the resource. */
export interface Topology {
  readonly file: string;
  readonly services: readonly ServiceSpec[];
}

const roleSchema = z.strictObject({
  node: z.string().regex(/^(server:\d+|resource)$/, "expected server:N or resource"),
  port: z.number().int().min(1).max(65535),
  probe: z.enum(["redis", "etcd"]),
});

const environmentSchema = z
  .union([
    z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])),
    z.array(z.string().regex(/^[^=]+=/, "expected NAME=value")),
  ])
  .optional();

const serviceSchema = z.looseObject({
  image: z.string().min(1),
  command: z.array(z.string(), {
    error: "expected a list of arguments (lockcheck does not split command strings)",
  }),
  environment: environmentSchema,
  "x-lockcheck": roleSchema,
});

const composeSchema = z.looseObject({
  services: z.record(
    z.string().regex(/^[a-z0-9][a-z0-9_.-]*$/, "service names are lowercase"),
    serviceSchema,
  ),
});

/**
 * Compose-style variable interpolation of one string. Returns the unknown variable's name
 * as an error when `${NAME}` has neither a value nor a default.
 */
export function interpolate(
  text: string,
  vars: (name: string) => string | undefined,
): Result<string, string> {
  let missing: string | null = null;
  const out = text.replace(
    /\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?-)([^}]*))?\}|\$([A-Za-z_][A-Za-z0-9_]*)/g,
    (whole, braced?: string, op?: string, fallback?: string, bare?: string) => {
      if (whole === "$$") return "$";
      const name = (braced ?? bare)!;
      const value = vars(name);
      if (op === ":-") return value === undefined || value === "" ? (fallback ?? "") : value;
      if (op === "-") return value === undefined ? (fallback ?? "") : value;
      if (value === undefined) missing ??= name;
      return value ?? "";
    },
  );
  return missing === null ? ok(out) : err(missing);
}

function interpolateTree(
  value: unknown,
  vars: (name: string) => string | undefined,
  path: string,
): Result<unknown, InputError> {
  if (typeof value === "string") {
    const r = interpolate(value, vars);
    return r.ok ? r : err({ field: path, message: `variable \${${r.error}} is not set and has no default` });
  }
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    for (const [i, v] of value.entries()) {
      const r = interpolateTree(v, vars, `${path}[${i}]`);
      if (!r.ok) return r;
      out.push(r.value);
    }
    return ok(out);
  }
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      const r = interpolateTree(v, vars, path === "" ? k : `${path}.${k}`);
      if (!r.ok) return r;
      out[k] = r.value;
    }
    return ok(out);
  }
  return ok(value);
}

function environmentRecord(env: z.infer<typeof environmentSchema>): Record<string, string> {
  if (env === undefined) return {};
  if (Array.isArray(env)) {
    return Object.fromEntries(env.map((kv) => [kv.slice(0, kv.indexOf("=")), kv.slice(kv.indexOf("=") + 1)]));
  }
  return Object.fromEntries(Object.entries(env).map(([k, v]) => [k, String(v)]));
}

function serverIndex(node: string): number {
  return node === "resource" ? Number.POSITIVE_INFINITY : Number(node.slice("server:".length));
}

/** Parses and checks Compose text (the file name is only for messages). */
export function parseTopology(
  text: string,
  file: string,
  vars: Readonly<Record<string, string | undefined>> = {},
): Result<Topology, InputError> {
  let doc: unknown;
  try {
    doc = parseYaml(text, { merge: true });
  } catch (e) {
    return err({ file, message: `not valid YAML: ${e instanceof Error ? e.message : String(e)}` });
  }
  const lookup = (name: string): string | undefined => vars[name] ?? process.env[name];
  const interpolated = interpolateTree(doc, lookup, "");
  if (!interpolated.ok) return err({ ...interpolated.error, file });
  const parsed = composeSchema.safeParse(interpolated.value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return err({ file, field: issue.path.join("."), message: issue.message });
  }
  const services: ServiceSpec[] = Object.entries(parsed.data.services).map(([service, s]) => ({
    service,
    node: s["x-lockcheck"].node,
    image: s.image,
    command: s.command,
    environment: environmentRecord(s.environment),
    containerPort: s["x-lockcheck"].port,
    probe: s["x-lockcheck"].probe,
  }));
  services.sort((a, b) => serverIndex(a.node) - serverIndex(b.node));

  const nodes = services.map((s) => s.node);
  const duplicate = nodes.find((n, i) => nodes.indexOf(n) !== i);
  if (duplicate !== undefined) return err({ file, message: `two services play ${duplicate}` });
  if (!nodes.includes("resource"))
    return err({ file, message: "no service plays the resource (x-lockcheck.node: resource)" });
  const servers = services.filter((s) => s.node !== "resource");
  if (servers.length === 0)
    return err({ file, message: "no service plays a lock server (x-lockcheck.node: server:0)" });
  const gap = servers.findIndex((s, i) => s.node !== `server:${i}`);
  if (gap >= 0)
    return err({
      file,
      message: `servers must be server:0 … server:${servers.length - 1}; server:${gap} is missing`,
    });
  return ok({ file, services });
}

export function loadTopology(
  file: string,
  vars: Readonly<Record<string, string | undefined>> = {},
): Result<Topology, InputError> {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    return err({ file, message: `cannot read: ${e instanceof Error ? e.message : String(e)}` });
  }
  return parseTopology(text, file, vars);
}
