import { describe, expect, it } from "vitest";
import { type Category, buildLookup, categoryOf, emptyLookup, matches, toEntry, visibleEntries } from "./entries";

const N0 = "00000000-0000-0000-0000-0000000000a0";
const N1 = "00000000-0000-0000-0000-0000000000a1";
const N2 = "00000000-0000-0000-0000-0000000000a2";
const I0 = "10000000-0000-0000-0000-000000000000";
const I1 = "11000000-0000-0000-0000-000000000000";

const lookup = buildLookup({
  nodes: [
    { id: N0, name: "s0/host" },
    { id: N1, name: "s0/nic0" },
    { id: N2, name: "s1/host" },
  ],
  deployments: [
    { id: "d0", application: "iot-ts" },
    { id: "d1", application: "nfv-fin" },
  ],
  instances: { id: [I0, I1], node: [1, 0], deployment: [0, 1], dag_node: ["gateway", "kvs"], shard: [0, 2], replica: [0, 1] },
});

let id = 0;
const ev = (kind: string, subject: string, data: Record<string, unknown> = {}) => ({ id: ++id, ts: "2026-11-22T02:00:00.123Z", kind, subject, data });

const ALL = new Set<Category>(["detection", "migration", "failover", "node", "refusal", "other"]);

describe("timeline entries", () => {
  it("puts kinds in the filter categories", () => {
    expect(categoryOf("orchestrator.detection")).toBe("detection");
    expect(categoryOf("orchestrator.no_decision")).toBe("detection");
    expect(categoryOf("orchestrator.mode")).toBe("other");
    expect(categoryOf("migration.step")).toBe("migration");
    expect(categoryOf("failover.promoted")).toBe("failover");
    expect(categoryOf("node.down")).toBe("node");
    expect(categoryOf("command.nack")).toBe("refusal");
    expect(categoryOf("deployment.failed")).toBe("refusal");
    expect(categoryOf("command.ack")).toBe("other");
    expect(categoryOf("deployment.placed")).toBe("other");
  });

  it("links a node state change to its node and the applications on it", () => {
    const e = toEntry(ev("node.down", `node/${N1}`, { name: "s0/nic0", previous: "suspect" }), lookup);
    expect(e.text).toBe("s0/nic0 down (was suspect)");
    expect(e.refs).toEqual([{ kind: "node", index: 1, label: "s0/nic0" }]);
    expect(e.applications).toEqual(["iot-ts"]);
    expect(e.tone).toBe("bad");
  });

  it("links a detection and a decision to the node, the instance and the target", () => {
    const d = toEntry(ev("orchestrator.detection", `node/${N1}`, { trouble: "overload", instance_id: I0, detail: {} }), lookup);
    expect(d.text).toBe("Detection on s0/nic0: overload of gateway shard 0 primary");
    expect(d.refs.map((r) => [r.kind, r.index])).toEqual([
      ["node", 1],
      ["instance", 0],
    ]);
    const c = toEntry(ev("orchestrator.decision", `node/${N1}`, { trouble: "host_starvation", instance_id: I0, target_node_id: N0, level: 1, mode: "observe" }), lookup);
    expect(c.text).toBe("Decision (host starvation on s0/nic0): move gateway shard 0 primary to s0/host (level 1), observe only");
    expect(c.refs.map((r) => r.label)).toEqual(["s0/nic0", "gateway shard 0 primary", "s0/host"]);
    expect(c.applications).toEqual(["iot-ts", "nfv-fin"]); // s0/host holds a kvs backup of nfv-fin
  });

  it("describes a migration's request, steps and end with their nodes", () => {
    const r = toEntry(ev("migration.requested", `instance/${I1}`, { source: "s0/host", target: "s1/host", reason: "manual", requested_by: "ci" }), lookup);
    expect(r.text).toBe("Migration of kvs shard 2 backup 1 requested: s0/host → s1/host (manual, by ci)");
    expect(r.refs.map((x) => [x.kind, x.index])).toEqual([
      ["instance", 1],
      ["node", 0],
      ["node", 2],
    ]);
    const s = toEntry(ev("migration.step", `instance/${I1}`, { step: "stop_and_transfer", state: "done", ms: 339.4 }), lookup);
    expect(s.text).toBe("kvs shard 2 backup 1: step stop_and_transfer done in 339 ms");
    const f = toEntry(ev("migration.rolled_back", `instance/${I1}`, { source: "s0/host", target: "s1/host", total_ms: 20050, error: "timeout" }), lookup);
    expect(f.text).toBe("Migration of kvs shard 2 backup 1 rolled back (s0/host → s1/host), steps 20050 ms: timeout");
    expect(f.tone).toBe("bad");
  });

  it("describes failovers, including instances the layout no longer has", () => {
    const gone = "99999999-0000-0000-0000-000000000000";
    const p = toEntry(ev("failover.promoted", `instance/${I1}`, { replaces: gone, dag_node: "kvs", shard: 2, node: "s0/host", lost_node: "s0/nic0" }), lookup);
    expect(p.text).toBe("kvs shard 2: backup promoted on s0/host (primary lost on s0/nic0)");
    expect(p.refs.map((x) => x.label)).toEqual(["kvs shard 2 backup 1", "s0/host", "s0/nic0"]);
    const u = toEntry(ev("failover.unplaced", `instance/${gone}`, { dag_node: "kvs", shard: 0, reason: "no room" }), lookup);
    expect(u.refs).toEqual([{ kind: "instance", index: null, id: gone, label: "instance 99999999" }]);
    expect(u.applications).toEqual([]); // an old event: it does not name its application
  });

  it("uses the application an event names, even for an instance the layout no longer has", () => {
    const gone = "99999999-0000-0000-0000-000000000000";
    const u = toEntry({ ...ev("failover.unplaced", `instance/${gone}`, { dag_node: "kvs", shard: 0, application: "shop" }), application: "shop" }, lookup);
    expect(u.applications).toEqual(["shop"]);
    // in data only (as an event read by an older client's type); and the event's own wins over the layout's guess
    const d = toEntry(ev("orchestrator.decision", `node/${N1}`, { trouble: "overload", instance_id: I0, target_node_id: N0, application: "iot-ts" }), lookup);
    expect(d.applications).toEqual(["iot-ts"]); // s0/host also holds nfv-fin, but the decision is about iot-ts
    expect(matches(u, { application: "shop", categories: ALL })).toBe(true);
  });

  it("falls back to the raw kind for others, and works without a layout", () => {
    const e = toEntry(ev("agent.restart_failed", `node/${N0}`, { error: "port_in_use" }), emptyLookup);
    expect(e.text).toBe("agent.restart_failed on node 00000000: port_in_use");
    expect(e.tone).toBe("bad");
    expect(e.refs[0]).toMatchObject({ kind: "node", index: null });
  });

  it("says which instance an agent ACKed or refused, and the agent's reason", () => {
    const nack = toEntry(ev("command.nack", `node/${N1}`, { command: "deploy_instance", instance_id: I0, version: 3,
      error_code: "bad_config", error_message: "engine: api_gateway: config needs keys=<k1,k2,...>" }), lookup);
    expect(nack.text).toBe("Agent on s0/nic0 refused deploy instance of gateway shard 0 primary: bad_config: engine: api_gateway: config needs keys=<k1,k2,...>");
    expect(nack.tone).toBe("bad");
    expect(nack.refs.map((r) => r.label)).toEqual(["s0/nic0", "gateway shard 0 primary"]);
    const bare = toEntry(ev("command.nack", `node/${N1}`, { version: 4, error_code: "busy", error_message: "busy" }), lookup);
    expect(bare.text).toBe("Agent on s0/nic0 refused command v4: busy");
    const ack = toEntry(ev("command.ack", `node/${N0}`, { command: "deploy_instance", instance_id: I1 }), lookup);
    expect(ack.text).toBe("Agent on s0/host ACKed deploy instance of kvs shard 2 backup 1");
    expect(ack.tone).toBe("ok");
  });

  it("describes a deployment placed, or not", () => {
    expect(toEntry(ev("deployment.placed", "deployment/9b1f0c2e-0000", { instances: 4 }), lookup).text).toBe("Deployment 9b1f0c2e placed: 4 instances");
    const failed = toEntry(ev("deployment.failed", "deployment/9b1f0c2e-0000", { error: "no room for sql" }), lookup);
    expect(failed.text).toBe("Deployment 9b1f0c2e not placed: no room for sql");
    expect(failed.tone).toBe("bad");
  });

  it("gives a deployment's events its application", () => {
    expect(toEntry(ev("deployment.placed", "deployment/d1", { instances: 4 }), lookup).applications).toEqual(["nfv-fin"]);
  });

  it("filters by application and category, newest first, at most max", () => {
    const entries = [
      toEntry(ev("node.up", `node/${N2}`, { name: "s1/host" }), lookup), // no application on it
      toEntry(ev("node.down", `node/${N1}`, { name: "s0/nic0" }), lookup), // iot-ts
      toEntry(ev("migration.started", `instance/${I1}`, {}), lookup), // nfv-fin
      toEntry(ev("failover.started", `node/${N1}`, { name: "s0/nic0", instances: 1 }), lookup), // iot-ts
    ];
    expect(visibleEntries(entries, { application: "", categories: ALL }).map((e) => e.kind)).toEqual([
      "failover.started",
      "migration.started",
      "node.down",
      "node.up",
    ]);
    expect(visibleEntries(entries, { application: "iot-ts", categories: ALL }).map((e) => e.kind)).toEqual(["failover.started", "node.down"]);
    expect(visibleEntries(entries, { application: "", categories: new Set(["node"]) }).map((e) => e.kind)).toEqual(["node.down", "node.up"]);
    expect(visibleEntries(entries, { application: "", categories: ALL }, 2)).toHaveLength(2);
    expect(matches(entries[2]!, { application: "nfv-fin", categories: new Set(["migration"]) })).toBe(true);
  });

  it("keeps a node's failover under the applications it names after their instances have left the node", () => {
    // s1/host holds no instance in the layout (the failover moved them): the event's own list decides
    const started = toEntry(ev("failover.started", `node/${N2}`, { name: "s1/host", instances: 2, applications: ["iot-ts", "shop"] }), lookup);
    const down = toEntry(ev("node.down", `node/${N2}`, { name: "s1/host" }), lookup);
    expect(started.applications).toEqual(["iot-ts", "shop"]);
    expect(visibleEntries([down, started], { application: "shop", categories: ALL }).map((e) => e.kind)).toEqual(["failover.started"]);
  });
});
