// The timeline's entries: one per event, except a migration's events (and its commands' answers), which make
// one entry that opens to its steps in protocol order (migrationGroups.ts). Pure.

import {
  type Lookup,
  type MigrationViewLine,
  type Ref,
  type TimelineEntry,
  type Tone,
  instanceRef,
  nodeRefById,
  toEntry,
} from "./entries";
import {
  type CommandAnswer,
  type MigrationLine,
  type MigrationSummary,
  type TimelineEvent,
  gatherMigrations,
  isMigrationEvents,
  summarizeMigration,
} from "./migrationGroups";

const ms = (v: number) => `${Math.round(v)} ms`;

function lineTone(l: MigrationLine): Tone {
  if (l.kind === "rolling_back") return "warn";
  if (l.state === "failed" || l.state === "rolled_back") return "bad";
  if (l.state === "done" || l.state === "succeeded") return "ok";
  return "info";
}

function lineText(l: MigrationLine, s: MigrationSummary): string {
  const route = `${s.source ?? "?"} → ${s.target ?? "?"}`;
  switch (l.kind) {
    case "requested":
      return `Requested (${s.reason ?? "manual"}${s.requestedBy ? `, by ${s.requestedBy}` : ""}): ${route}`;
    case "started":
      return "Started";
    case "step":
      return `${l.name}: ${l.state}${l.ms !== null ? ` in ${ms(l.ms)}` : ""}${l.error ? `: ${l.error}` : ""}`;
    case "rolling_back":
      return `Rolling back${l.error ? `: ${l.error}` : ""}`;
    case "end":
      return `${l.state === "succeeded" ? "Succeeded" : l.state === "rolled_back" ? "Rolled back" : "Failed"}` +
        `${l.ms !== null ? `, steps ${ms(l.ms)}` : ""}${l.error ? `: ${l.error}` : ""}`;
  }
}

function headline(s: MigrationSummary, instance: string): string {
  const what = `${s.seed ? "Seed" : "Migration"} of ${instance}`;
  const route = s.source || s.target ? ` (${s.source ?? "?"} → ${s.target ?? "?"})` : "";
  const steps = s.lines.filter((l) => l.kind === "step");
  const done = steps.filter((l) => l.state === "done").length;
  switch (s.state) {
    case "requested":
      return `${what} requested${route}`;
    case "running": {
      const current = steps.filter((l) => l.state === "running").map((l) => l.name);
      return `${what} running${route}: ${done} step${done === 1 ? "" : "s"} done${current.length > 0 ? `, ${current.join(" and ")} under way` : ""}`;
    }
    case "rolling_back":
      return `${what} rolling back${route}${s.error ? `: ${s.error}` : ""}`;
    default: {
      const word = s.state === "rolled_back" ? "rolled back" : s.state;
      const took = s.totalMs !== null ? `, steps ${ms(s.totalMs)}` : "";
      return `${what} ${word}${route}, ${done} of ${steps.length} steps done${took}${s.error ? `: ${s.error}` : ""}`;
    }
  }
}

function stateTone(state: string): Tone {
  if (state === "succeeded") return "ok";
  if (state === "failed" || state === "rolled_back") return "bad";
  return state === "rolling_back" ? "warn" : "info";
}

/** A step's answers: the ACKs of one command kind together ("✓ set_routes on a, b, c"), each NACK with its reason. */
function answerChips(answers: readonly CommandAnswer[], lookup: Lookup): MigrationViewLine["answers"] {
  const chips: { id: number; ok: boolean; command: string; nodes: string[]; error: string | null }[] = [];
  for (const a of answers) {
    const node = nodeRefById(lookup, a.nodeId).label;
    const same = a.ok ? chips.find((c) => c.ok && c.command === a.command) : undefined;
    if (same) same.nodes.push(node);
    else chips.push({ id: a.id, ok: a.ok, command: a.command, nodes: [node], error: a.error });
  }
  return chips.map((c) => ({
    id: c.id,
    ok: c.ok,
    text: `${c.ok ? "✓" : "✗"} ${c.command} on ${c.nodes.join(", ")}${c.error ? `: ${c.error}` : ""}`,
  }));
}

function migrationEntry(events: TimelineEvent[], s: MigrationSummary, lookup: Lookup): TimelineEntry {
  const members = events.map((e) => toEntry(e, lookup));
  const refs: Ref[] = [];
  for (const r of members.flatMap((m) => m.refs)) {
    if (!refs.some((x) => x.kind === r.kind && x.label === r.label)) refs.push(r);
  }
  const applications = [...new Set(members.flatMap((m) => m.applications))].sort();
  const lines: MigrationViewLine[] = s.lines.map((l) => ({
    id: l.id,
    ts: l.ts,
    name: l.kind === "step" ? l.name : l.kind,
    state: l.state,
    text: lineText(l, s),
    tone: lineTone(l),
    answers: answerChips(l.answers, lookup),
  }));
  const first = events[0]!;
  return {
    id: first.id,
    ts: first.ts,
    kind: "migration",
    category: "migration",
    text: headline(s, instanceRef(lookup, s.instanceId).label),
    refs,
    applications,
    tone: stateTone(s.state),
    migration: { key: s.key, state: s.state, lines },
  };
}

/** The entries for `events`, by id: a migration's in one entry, placed at its first event. */
export function timelineEntries(events: readonly TimelineEvent[], lookup: Lookup): TimelineEntry[] {
  return gatherMigrations(events).map((item) =>
    isMigrationEvents(item) ? migrationEntry(item.events, summarizeMigration(item), lookup) : toEntry(item, lookup),
  );
}
