import { describe, expect, it } from "vitest";
import { type Category, buildLookup, visibleEntries } from "./entries";
import { type TimelineEvent, gatherMigrations, isMigrationEvents, summarizeMigration } from "./migrationGroups";
import { timelineEntries } from "./timelineRows";

// A kvs primary moved from r0000-s00/host to r0000-s02/host, as `e3 up --mode local` recorded it (ids shortened):
// the first round (push, open_transfer) is issued in the request's transaction, so migration.started comes after
// the push's event and the target's first ACK; set_routes goes to every node and its ACKs name no instance.
const S0 = "8329dcbd-477e-411c-9093-463d51168bf5";
const S1 = "31d6c077-e508-4026-be90-ce0f4bf10a5b";
const S2 = "c7d3dd11-1faf-4b54-b7cd-ef053803305f";
const KV = "1b4b4306-6d97-4d7f-a559-78b5519a45d3";
const M = "a443beab-79f5-4d31-88ca-07cbdadfacda";
const D0 = "d0000000-0000-4000-8000-000000000000";

const lookup = buildLookup({
  nodes: [
    { id: S0, name: "r0000-s00/host" },
    { id: S1, name: "r0000-s01/host" },
    { id: S2, name: "r0000-s02/host" },
  ],
  deployments: [{ id: D0, application: "kvx" }],
  instances: { id: [KV], node: [2], deployment: [0], dag_node: ["kv"], shard: [0], replica: [0] },
});

const at = (ms: number) => `2026-11-26T09:55:26.${String(ms).padStart(3, "0")}Z`;
const mig = (id: number, kind: string, data: Record<string, unknown>): TimelineEvent => ({
  id,
  ts: at(id * 10),
  kind: `migration.${kind}`,
  subject: `instance/${KV}`,
  application: "kvx",
  data: { ...data, application: "kvx", migration_id: M },
});
const step = (id: number, name: string, state: string, extra: Record<string, unknown> = {}) => mig(id, "step", { step: name, state, ...extra });
const issued = (...commands: [string, number][]) => ({ commands: commands.map(([node_id, version]) => ({ node_id, version })) });
const ack = (id: number, node: string, command: string, version: number, instance: string | null = KV): TimelineEvent => ({
  id,
  ts: at(id * 10),
  kind: "command.ack",
  subject: `node/${node}`,
  application: instance ? "kvx" : null,
  data: { command, version, agent_id: "a", instance_id: instance, ...(instance ? { application: "kvx" } : {}) },
});

const route = { source: "r0000-s00/host", target: "r0000-s02/host" };
const MOVE: TimelineEvent[] = [
  { id: 11, ts: at(110), kind: "deployment.placed", subject: `deployment/${D0}`, application: "kvx", data: { application: "kvx", instances: 3 } },
  mig(12, "requested", { ...route, reason: "manual", requested_by: "local-admin" }),
  step(13, "push", "running", issued([S2, 2])),
  step(14, "open_transfer", "running", issued([S2, 3])),
  ack(15, S2, "deploy_instance", 2),
  mig(16, "started", { ...route, stateful: true }),
  ack(17, S2, "import_state", 3),
  step(18, "push", "done", { ms: 57.7 }),
  step(19, "open_transfer", "done", { ms: 64.4 }),
  step(20, "stop_and_transfer", "running", issued([S0, 4])),
  ack(21, S0, "export_state", 4),
  step(22, "stop_and_transfer", "done", { ms: 29.5 }),
  step(23, "update_routes", "running", issued([S0, 5], [S1, 3], [S2, 4])),
  step(24, "cleanup_source", "running", issued([S0, 6])),
  ack(25, S1, "set_routes", 3, null),
  ack(26, S0, "set_routes", 5, null),
  ack(27, S2, "set_routes", 4, null),
  step(28, "update_routes", "done", { ms: 34.4 }),
  ack(29, S0, "remove_instance", 6),
  step(30, "cleanup_source", "done", { ms: 46.1 }),
  mig(31, "succeeded", { ...route, total_ms: 232.1, migration_kind: "move" }),
  // after it: an answer to another command on the same node, not the migration's
  ack(32, S0, "set_routes", 7, null),
];

const ALL = new Set<Category>(["detection", "migration", "failover", "node", "other"]);
const DEFAULT = new Set<Category>(["detection", "migration", "failover", "node"]);

describe("a migration's events gathered", () => {
  it("makes one item of its 13 migration events and its 7 answers, where it began; the rest stay", () => {
    const items = gatherMigrations(MOVE);
    expect(items.map((i) => (isMigrationEvents(i) ? i.key : i.id))).toEqual([11, `migration/${M}`, 32]);
    const group = items[1];
    if (!group || !isMigrationEvents(group)) throw new Error("no migration item");
    expect(group.events).toHaveLength(13);
    expect(group.answers.map((a) => a.id)).toEqual([15, 17, 21, 25, 26, 27, 29]);
  });

  it("lists request, start, then the steps in protocol order, each with its answers, then the end", () => {
    const [, group] = gatherMigrations(MOVE);
    const s = summarizeMigration(group as Exclude<typeof group, TimelineEvent | undefined>);
    expect(s.lines.map((l) => l.name)).toEqual([
      "migration.requested",
      "migration.started", // recorded after push's event (id 16 > 13), listed before it
      "push",
      "open_transfer",
      "stop_and_transfer",
      "update_routes",
      "cleanup_source",
      "migration.succeeded",
    ]);
    expect(s).toMatchObject({ state: "succeeded", seed: false, ...route, reason: "manual", requestedBy: "local-admin", totalMs: 232.1, error: null });
    const steps = Object.fromEntries(s.lines.filter((l) => l.kind === "step").map((l) => [l.name, l]));
    expect(steps.push).toMatchObject({ state: "done", ms: 57.7 });
    expect(steps.push!.answers.map((a) => a.command)).toEqual(["deploy_instance"]);
    expect(steps.update_routes!.answers.map((a) => [a.command, a.nodeId, a.ok])).toEqual([
      ["set_routes", S1, true],
      ["set_routes", S0, true],
      ["set_routes", S2, true],
    ]);
    expect(steps.cleanup_source!.answers.map((a) => a.command)).toEqual(["remove_instance"]);
  });

  it("orders by event id, not by arrival", () => {
    const shuffled = [...MOVE].reverse();
    const entries = timelineEntries(shuffled, lookup);
    expect(entries.map((e) => e.kind)).toEqual(["deployment.placed", "migration", "command.ack"]);
    expect(entries[1]!.migration!.lines.map((l) => l.name).slice(0, 4)).toEqual(["requested", "started", "push", "open_transfer"]);
  });

  it("is one timeline entry naming the instance, its route, state and time, found by its application", () => {
    const entries = timelineEntries(MOVE, lookup);
    const m = entries[1]!;
    expect(m).toMatchObject({ id: 12, kind: "migration", category: "migration", tone: "ok", applications: ["kvx"] });
    expect(m.text).toBe("Migration of kv shard 0 primary succeeded (r0000-s00/host → r0000-s02/host), 5 of 5 steps done, steps 232 ms");
    expect(m.refs.map((r) => r.label)).toEqual(["kv shard 0 primary", "r0000-s00/host", "r0000-s02/host"]);
    expect(m.migration!.lines.map((l) => l.text)).toEqual([
      "Requested (manual, by local-admin): r0000-s00/host → r0000-s02/host",
      "Started",
      "push: done in 58 ms",
      "open_transfer: done in 64 ms",
      "stop_and_transfer: done in 30 ms",
      "update_routes: done in 34 ms",
      "cleanup_source: done in 46 ms",
      "Succeeded, steps 232 ms",
    ]);
    expect(m.migration!.lines[5]!.answers.map((a) => a.text)).toEqual(["✓ set_routes on r0000-s01/host, r0000-s00/host, r0000-s02/host"]);
    expect(m.migration!.lines[2]!.answers.map((a) => a.text)).toEqual(["✓ deploy_instance on r0000-s02/host"]);
    // the filters: by default (Other off) the migration is one entry; its answers never show on their own
    expect(visibleEntries(entries, { application: "", categories: DEFAULT }).map((e) => e.kind)).toEqual(["migration"]);
    expect(visibleEntries(entries, { application: "kvx", categories: ALL }).map((e) => e.id)).toEqual([12, 11]);
    expect(visibleEntries(entries, { application: "other", categories: ALL })).toEqual([]);
    expect(visibleEntries(entries, { application: "", categories: new Set(["other"]) }).map((e) => e.id)).toEqual([32, 11]);
  });

  it("says what is under way while it runs", () => {
    const [, m] = timelineEntries(MOVE.slice(0, 11), lookup); // up to stop_and_transfer's ACK
    expect(m!.text).toBe("Migration of kv shard 0 primary running (r0000-s00/host → r0000-s02/host): 2 steps done, stop_and_transfer under way");
    expect(m!.tone).toBe("info");
    expect(m!.migration!.lines.at(-1)).toMatchObject({ name: "stop_and_transfer", state: "running" });
  });

  it("shows a roll-back where it began: the failed step, its NACK, the target copy removed, the reason", () => {
    const events = [
      mig(40, "requested", { ...route, reason: "host_starvation", requested_by: "orchestrator" }),
      step(41, "push", "running", issued([S2, 9])),
      step(42, "open_transfer", "running", issued([S2, 10])),
      { ...ack(43, S2, "deploy_instance", 9), kind: "command.nack", data: { command: "deploy_instance", version: 9, instance_id: KV, error_code: "port_in_use", error_message: "port 21000 is taken" } },
      mig(44, "started", { ...route, stateful: true }),
      step(45, "push", "failed", { error: "port 21000 is taken" }),
      step(46, "open_transfer", "failed", { error: "push failed first" }),
      mig(47, "rolling_back", { error: "push: port 21000 is taken" }),
      step(48, "undo_push", "running", issued([S2, 11])),
      ack(49, S2, "remove_instance", 11),
      step(50, "undo_push", "done", { ms: 12 }),
      mig(51, "rolled_back", { ...route, total_ms: 40, error: "push: port 21000 is taken", code: "port_in_use", migration_kind: "move" }),
    ];
    const [m] = timelineEntries(events, lookup);
    expect(m!.tone).toBe("bad");
    expect(m!.text).toBe(
      "Migration of kv shard 0 primary rolled back (r0000-s00/host → r0000-s02/host), 1 of 3 steps done, steps 40 ms: push: port 21000 is taken",
    );
    expect(m!.migration!.lines.map((l) => [l.name, l.state])).toEqual([
      ["requested", ""],
      ["started", ""],
      ["push", "failed"],
      ["open_transfer", "failed"],
      ["rolling_back", ""],
      ["undo_push", "done"],
      ["end", "rolled_back"],
    ]);
    expect(m!.migration!.lines[2]!.answers).toEqual([{ id: 43, ok: false, text: "✗ deploy_instance on r0000-s02/host: port_in_use: port 21000 is taken" }]);
  });

  it("gathers events recorded before they named their migration by instance, one migration after another", () => {
    const old = (id: number, kind: string, data: Record<string, unknown> = {}): TimelineEvent => ({ id, ts: at(id), kind, subject: `instance/${KV}`, data });
    const events = [
      old(60, "migration.requested", route),
      old(61, "migration.step", { step: "push", state: "running" }),
      old(62, "migration.succeeded", route),
      old(63, "migration.requested", { source: "r0000-s02/host", target: "r0000-s01/host" }),
      old(64, "migration.failed", { error: "r0000-s01/host went down; failed over" }),
    ];
    const entries = timelineEntries(events, lookup);
    expect(entries.map((e) => [e.id, e.migration?.state])).toEqual([
      [60, "succeeded"],
      [63, "failed"],
    ]);
  });

  it("calls a failover's new backup a seed", () => {
    const events = [
      mig(70, "started", { ...route, stateful: true }),
      step(71, "copy_state", "running"),
      step(72, "copy_state", "done", { ms: 20 }),
    ];
    expect(timelineEntries(events, lookup)[0]!.text).toBe(
      "Seed of kv shard 0 primary running (r0000-s00/host → r0000-s02/host): 1 step done",
    );
  });
});
