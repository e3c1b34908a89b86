// Messages as the API sends them, for the live tests.

import type { LiveMessage, LiveNode } from "./types";

export function node(id: string, patch: Partial<LiveNode> = {}): LiveNode {
  return {
    id,
    name: `s1/${id}`,
    kind: "host",
    server: "s1",
    rack: "r1",
    state: "up",
    state_since: null,
    ts: "2026-01-01T00:00:00+00:00",
    age_ms: 40,
    stale: false,
    queue_len: 3,
    cpu_util: 0.5,
    power: { watts: 20, source: "model" },
    instances: [],
    ...patch,
  };
}

const totals = {
  nodes: 2,
  nodes_reporting: 2,
  nodes_stale: 0,
  complete: true,
  power: { watts: 40, source: "model" as const, sources: ["model" as const] },
  throughput_rps: 100,
  requests_per_joule: 2.5,
};

export function message(type: "snapshot" | "update", seq: number, nodes: LiveNode[]): LiveMessage {
  return {
    type,
    seq,
    server_time: "2026-01-01T00:00:00.040000+00:00",
    stale_after_ms: 500,
    nodes,
    applications: [],
    totals,
    ...(type === "snapshot" ? { cluster: { id: "c", name: "rack" }, instances: [] } : {}),
  };
}
