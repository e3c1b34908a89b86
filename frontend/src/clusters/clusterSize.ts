// How big a cluster will be, before it is created: racks, servers and computing nodes (a host per
// server, plus one node per SmartNIC of its type), from the generator's fields or a pasted spec.
// The same rules as backend/e3/schemas/cluster_spec.py; the API stays the judge of what is valid.

import { countOf } from "../lib/format";

export const DEFAULT_SERVERS_PER_RACK = 40;

/** What the preview needs of a server type (GET /api/v1/catalog/server-types). */
export interface ServerTypeInfo {
  name: string;
  smartnics: number;
}

export interface ClusterSize {
  racks: number;
  servers: number;
  /** Computing nodes: `hosts` + `smartnics`. */
  nodes: number;
  hosts: number;
  smartnics: number;
}

/** The size, or why it cannot be told yet (in words for the form). */
export type SizePreview = { ok: true; size: ClusterSize } | { ok: false; problem: string };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

const isCount = (value: unknown): value is number => typeof value === "number" && Number.isInteger(value) && value >= 1;

/** Racks and servers counted by type → the size; a type not in the catalogue is named. */
function sizeOf(racks: number, serversByType: Map<string, number>, types: readonly ServerTypeInfo[]): SizePreview {
  let servers = 0;
  let smartnics = 0;
  for (const [name, count] of serversByType) {
    const type = types.find((t) => t.name === name);
    if (type === undefined) {
      return { ok: false, problem: `unknown server type '${name}'; valid types: ${types.map((t) => t.name).join(", ")}` };
    }
    servers += count;
    smartnics += count * type.smartnics;
  }
  return { ok: true, size: { racks, servers, hosts: servers, smartnics, nodes: servers + smartnics } };
}

/** The fattree generator's cluster: `servers` of one type, `serversPerRack` to a rack (the last one may hold fewer). */
export function generatedSize(
  servers: number,
  serverType: string,
  serversPerRack: number,
  types: readonly ServerTypeInfo[],
): SizePreview {
  if (!isCount(servers)) return { ok: false, problem: "servers must be a whole number of at least 1" };
  if (!isCount(serversPerRack)) return { ok: false, problem: "servers per rack must be a whole number of at least 1" };
  return sizeOf(Math.ceil(servers / serversPerRack), new Map([[serverType, servers]]), types);
}

function generatorPreview(g: Record<string, unknown>, types: readonly ServerTypeInfo[]): SizePreview {
  if (typeof g.server_type !== "string") return { ok: false, problem: "server_type is missing" };
  const perRack = g.servers_per_rack === undefined ? DEFAULT_SERVERS_PER_RACK : g.servers_per_rack;
  return generatedSize(g.servers as number, g.server_type, perRack as number, types);
}

function racksPreview(racks: unknown, types: readonly ServerTypeInfo[]): SizePreview {
  if (!Array.isArray(racks) || racks.length === 0) return { ok: false, problem: "give spec.racks (a list) or a generator" };
  const byType = new Map<string, number>();
  for (const [i, rack] of racks.entries()) {
    const groups = isRecord(rack) ? rack.servers : undefined;
    if (!Array.isArray(groups) || groups.length === 0) return { ok: false, problem: `racks[${i}] lists no servers` };
    for (const group of groups) {
      const count = isRecord(group) && group.count !== undefined ? group.count : 1;
      if (!isRecord(group) || typeof group.type !== "string" || !isCount(count)) {
        return { ok: false, problem: `racks[${i}].servers: each group needs a type and a count of at least 1` };
      }
      byType.set(group.type, (byType.get(group.type) ?? 0) + count);
    }
  }
  return sizeOf(racks.length, byType, types);
}

/** A parsed cluster document: the full one (`kind: Cluster`, racks or a generator) or the flat generator shorthand. */
export function specSize(doc: unknown, types: readonly ServerTypeInfo[]): SizePreview {
  if (!isRecord(doc)) return { ok: false, problem: "a cluster spec is a mapping (YAML) or an object (JSON)" };
  const shorthand = !("apiVersion" in doc) && !("kind" in doc) && ("generator" in doc || "servers" in doc);
  if (shorthand) return generatorPreview(doc, types);
  if (!isRecord(doc.spec)) return { ok: false, problem: "spec is missing" };
  return "generator" in doc.spec ? generatorPreview(doc.spec, types) : racksPreview(doc.spec.racks, types);
}

/** The size of a stored cluster (GET /clusters lists racks, servers and computing nodes). */
export function sizeOfCluster(cluster: { racks: number; servers: number; nodes: number }): ClusterSize {
  const { racks, servers, nodes } = cluster;
  return { racks, servers, nodes, hosts: servers, smartnics: nodes - servers };
}

/** "3 servers in 1 rack: 6 computing nodes (3 hosts, 3 SmartNICs)". */
export function describeSize(size: ClusterSize): string {
  return (
    `${countOf(size.servers, "server")} in ${countOf(size.racks, "rack")}: ${countOf(size.nodes, "computing node")} ` +
    `(${countOf(size.hosts, "host")}, ${countOf(size.smartnics, "SmartNIC")})`
  );
}
