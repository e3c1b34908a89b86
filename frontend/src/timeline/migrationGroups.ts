// A migration's events gathered into one: its request, start, steps, roll-back and end (migration.*, joined by
// their data.migration_id) and the agents' answers to its commands (command.ack|nack, joined by the node and
// command version each step's "running" event lists in data.commands). The steps are listed in protocol order:
// by the id of the event that issued each, never by arrival, and the start is listed right after the request
// (the first round is issued in the request's transaction, before a worker starts the run and says so:
// docs/orchestrator.md, "Migration protocol"). Pure.

import type { EventRow } from "../api/client";

export type TimelineEvent = Pick<EventRow, "id" | "ts" | "kind" | "subject" | "data" | "application">;

export interface MigrationEvents<E extends TimelineEvent = TimelineEvent> {
  /** "migration/<id>", or "instance/<id>#<first event id>" for events recorded before they named their migration. */
  key: string;
  /** Its migration.* events, by id. */
  events: E[];
  /** The agents' answers to its commands, by id. */
  answers: E[];
}

export type MigrationState = "requested" | "running" | "rolling_back" | "succeeded" | "failed" | "rolled_back";

export interface CommandAnswer {
  id: number;
  ok: boolean;
  /** deploy_instance, import_state, export_state, set_routes, remove_instance */
  command: string;
  nodeId: string;
  error: string | null;
}

export interface MigrationLine {
  kind: "requested" | "started" | "step" | "rolling_back" | "end";
  /** The event the line stands for (a step's: the one that issued it). */
  id: number;
  ts: string;
  /** A step's name (push, open_transfer, …); else the event's kind. */
  name: string;
  /** A step's: running | done | failed; the end's: succeeded | failed | rolled_back; else "". */
  state: string;
  ms: number | null;
  error: string | null;
  /** A step's commands as the agents answered them. */
  answers: CommandAnswer[];
}

export interface MigrationSummary {
  key: string;
  migrationId: string | null;
  instanceId: string;
  state: MigrationState;
  /** A failover's new backup being seeded (a copy), not a move. */
  seed: boolean;
  source: string | null;
  target: string | null;
  reason: string | null;
  requestedBy: string | null;
  /** The steps' milliseconds, added up (the end's total_ms once ended). */
  totalMs: number | null;
  /** Why it failed or was rolled back. */
  error: string | null;
  /** Request, start, the steps in protocol order (with the roll-back where it began), end. */
  lines: MigrationLine[];
}

const END_KINDS = new Set(["migration.succeeded", "migration.failed", "migration.rolled_back"]);

function str(v: unknown): string | null {
  return typeof v === "string" && v !== "" ? v : null;
}

function num(v: unknown): number | null {
  return typeof v === "number" && Number.isFinite(v) ? v : null;
}

const dataOf = (e: TimelineEvent) => (e.data ?? {}) as Record<string, unknown>;

const subjectId = (subject: string, kind: string) => (subject.startsWith(`${kind}/`) ? subject.slice(kind.length + 1) : null);

/** "node id:version" of each command a step's "running" event says it issued. */
function issuedCommands(e: TimelineEvent): string[] {
  const commands = dataOf(e).commands;
  if (!Array.isArray(commands)) return [];
  return commands.flatMap((c: unknown) => {
    const { node_id: node, version } = (c ?? {}) as Record<string, unknown>;
    return typeof node === "string" && typeof version === "number" ? [`${node}:${version}`] : [];
  });
}

function answeredCommand(e: TimelineEvent): string | null {
  const node = subjectId(e.subject, "node");
  const version = num(dataOf(e).version);
  return node !== null && version !== null ? `${node}:${version}` : null;
}

/**
 * `events` (by id) with each migration's events, and its commands' answers, gathered in one item placed
 * where its first event was; every other event stays as it is.
 */
export function gatherMigrations<E extends TimelineEvent>(events: readonly E[]): (E | MigrationEvents<E>)[] {
  const sorted = events.every((e, i) => i === 0 || events[i - 1]!.id < e.id) ? events : [...events].sort((a, b) => a.id - b.id);
  const out: (E | MigrationEvents<E>)[] = [];
  const groups = new Map<string, MigrationEvents<E>>();
  // Events without a migration id join the migration under way on their instance, if any.
  const openOnInstance = new Map<string, MigrationEvents<E>>();
  const commandOwner = new Map<string, MigrationEvents<E>>();
  for (const e of sorted) {
    if (e.kind.startsWith("migration.")) {
      const id = str(dataOf(e).migration_id);
      let group = id !== null ? groups.get(`migration/${id}`) : openOnInstance.get(e.subject);
      if (!group) {
        group = { key: id !== null ? `migration/${id}` : `${e.subject}#${e.id}`, events: [], answers: [] };
        groups.set(group.key, group);
        out.push(group);
      }
      group.events.push(e);
      if (END_KINDS.has(e.kind)) openOnInstance.delete(e.subject);
      else openOnInstance.set(e.subject, group);
      if (e.kind === "migration.step") for (const c of issuedCommands(e)) commandOwner.set(c, group);
      continue;
    }
    if (e.kind === "command.ack" || e.kind === "command.nack") {
      const answered = answeredCommand(e);
      const group = answered !== null ? commandOwner.get(answered) : undefined;
      if (group) {
        group.answers.push(e);
        continue;
      }
    }
    out.push(e);
  }
  return out;
}

export function isMigrationEvents<E extends TimelineEvent>(item: E | MigrationEvents<E>): item is MigrationEvents<E> {
  return "answers" in item && "key" in item;
}

function answerOf(e: TimelineEvent): CommandAnswer {
  const d = dataOf(e);
  const ok = e.kind === "command.ack";
  const error = ok ? null : [str(d.error_code), str(d.error_message)].filter((x) => x !== null).join(": ") || "refused";
  return { id: e.id, ok, command: str(d.command) ?? "command", nodeId: subjectId(e.subject, "node") ?? "", error };
}

/** What a migration's gathered events say: its state, route, and lines in protocol order. */
export function summarizeMigration(group: MigrationEvents): MigrationSummary {
  let requested: MigrationLine | null = null;
  let started: MigrationLine | null = null;
  let end: MigrationLine | null = null;
  const rest: MigrationLine[] = [];
  const steps = new Map<string, MigrationLine>();
  const stepOfCommand = new Map<string, MigrationLine>();
  let state: MigrationState = "requested";
  let seed = false;
  let source: string | null = null;
  let target: string | null = null;
  let reason: string | null = null;
  let requestedBy: string | null = null;
  let error: string | null = null;
  let endTotal: number | null = null;
  const line = (e: TimelineEvent, kind: MigrationLine["kind"], name: string, lineState = ""): MigrationLine => ({
    kind,
    id: e.id,
    ts: e.ts,
    name,
    state: lineState,
    ms: null,
    error: null,
    answers: [],
  });

  for (const e of group.events) {
    const d = dataOf(e);
    source = str(d.source) ?? source;
    target = str(d.target) ?? target;
    switch (e.kind) {
      case "migration.requested":
        requested = line(e, "requested", e.kind);
        reason = str(d.reason);
        requestedBy = str(d.requested_by);
        break;
      case "migration.started":
        started = line(e, "started", e.kind);
        if (state === "requested") state = "running";
        break;
      case "migration.step": {
        const name = str(d.step) ?? "step";
        let step = steps.get(name);
        if (!step) {
          step = line(e, "step", name, "running");
          steps.set(name, step);
          rest.push(step);
        }
        step.state = str(d.state) ?? step.state;
        step.ms = num(d.ms) ?? step.ms;
        step.error = str(d.error) ?? step.error;
        for (const c of issuedCommands(e)) stepOfCommand.set(c, step);
        if (name === "copy_state") seed = true;
        if (state === "requested") state = "running";
        break;
      }
      case "migration.rolling_back":
        rest.push(line(e, "rolling_back", e.kind));
        error = str(d.error) ?? error;
        state = "rolling_back";
        break;
      default:
        if (END_KINDS.has(e.kind)) {
          const endState = e.kind.slice("migration.".length);
          end = line(e, "end", e.kind, endState);
          end.ms = num(d.total_ms);
          end.error = str(d.error);
          endTotal = end.ms;
          error = end.error ?? error;
          state = endState as MigrationState;
          if (d.migration_kind === "seed") seed = true;
        }
    }
  }
  for (const a of group.answers) {
    const key = answeredCommand(a);
    const step = key !== null ? stepOfCommand.get(key) : undefined;
    step?.answers.push(answerOf(a));
  }

  rest.sort((a, b) => a.id - b.id);
  const lines = [requested, started, ...rest, end].filter((l): l is MigrationLine => l !== null);
  const stepMs = [...steps.values()].map((s) => s.ms).filter((ms): ms is number => ms !== null);
  const totalMs = endTotal ?? (stepMs.length > 0 ? Math.round(stepMs.reduce((a, b) => a + b, 0) * 10) / 10 : null);
  const first = group.events[0];
  return {
    key: group.key,
    migrationId: first ? str(dataOf(first).migration_id) : null,
    instanceId: first ? (subjectId(first.subject, "instance") ?? "") : "",
    state,
    seed,
    source,
    target,
    reason,
    requestedBy,
    totalMs,
    error,
    lines,
  };
}
