import { Fragment, memo, useMemo, useState } from "react";
import type { EventRow } from "../api/client";
import { CATEGORIES, type Category, type Lookup, type MigrationView, type Ref, type TimelineEntry, visibleEntries } from "./entries";
import type { StreamConnection } from "./eventStream";
import { timelineEntries } from "./timelineRows";
import "./timeline.css";

export interface EventTimelineProps {
  events: readonly EventRow[];
  lookup: Lookup;
  connection: StreamConnection;
  error: string | null;
  attempt: number;
  applications: readonly string[];
  /** The application shown ("" for all): the cluster page's, shared with its toolbar. */
  application: string;
  onApplication: (application: string) => void;
  onRef: (ref: Ref) => void;
}

const SHOWN = 200;
const DEFAULT_CATEGORIES: Category[] = ["detection", "migration", "failover", "node", "refusal"];

function clock(ts: string): string {
  const d = new Date(ts);
  if (Number.isNaN(d.getTime())) return ts;
  const p = (n: number, w = 2) => String(n).padStart(w, "0");
  return `${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}.${p(d.getMilliseconds(), 3)}`;
}

function day(ts: string): string {
  const d = new Date(ts);
  return Number.isNaN(d.getTime()) ? "" : d.toDateString();
}

/** A migration's lines: request, start, each step with its commands' answers, roll-back, end. */
function MigrationLines({ m }: { m: MigrationView }) {
  return (
    <ol className="tl-steps" data-testid="timeline-steps">
      {m.lines.map((l) => (
        <li key={l.id} className={`tl-step tl-tone-${l.tone}`} data-testid="timeline-step" data-step={l.name} data-state={l.state}>
          <time dateTime={l.ts} title={`${l.ts} · event ${l.id}`}>
            {clock(l.ts)}
          </time>
          <span className="tl-text">{l.text}</span>
          {l.answers.length > 0 && (
            <span className="tl-answers">
              {l.answers.map((a) => (
                <span key={a.id} className={`tl-answer${a.ok ? "" : " tl-answer-bad"}`}>
                  {a.text}
                </span>
              ))}
            </span>
          )}
        </li>
      ))}
    </ol>
  );
}

const Entry = memo(function Entry({ e, onRef }: { e: TimelineEntry; onRef: (r: Ref) => void }) {
  const [open, setOpen] = useState(false);
  const m = e.migration;
  return (
    <li
      className={`tl-entry tl-${e.category} tl-tone-${e.tone}`}
      data-testid="timeline-entry"
      data-kind={e.kind}
      data-state={m?.state}
    >
      <time dateTime={e.ts} title={`${e.ts} · event ${e.id}`}>
        {clock(e.ts)}
      </time>
      <span className="tl-kind">{e.kind}</span>
      {m ? (
        <button
          type="button"
          className="tl-text tl-toggle"
          aria-expanded={open}
          data-testid="timeline-expand"
          title={open ? "Hide the steps" : "Show the steps"}
          onClick={() => setOpen((o) => !o)}
        >
          <span aria-hidden="true">{open ? "▾" : "▸"}</span> {e.text}
        </button>
      ) : (
        <span className="tl-text">{e.text}</span>
      )}
      {e.refs.length > 0 && (
        <span className="tl-refs">
          {e.refs.map((r) => (
            <button
              key={`${r.kind}:${r.label}`}
              type="button"
              className={`tl-ref tl-ref-${r.kind}`}
              disabled={r.index === null}
              title={r.index === null ? "Not on the drawing (gone, or not in this layout yet)" : `Show ${r.kind} on the drawing`}
              onClick={() => onRef(r)}
            >
              {r.kind === "node" ? "▭" : "■"} {r.label}
            </button>
          ))}
        </span>
      )}
      {m && open && <MigrationLines m={m} />}
    </li>
  );
});

/** Detections, migrations (one entry each, opening to its steps), failovers and node state changes, newest
 * first, filtered by application and kind. */
export function EventTimeline(props: EventTimelineProps) {
  const { events, lookup, connection, error, attempt, applications, application, onApplication, onRef } = props;
  const [categories, setCategories] = useState<ReadonlySet<Category>>(() => new Set(DEFAULT_CATEGORIES));
  const entries = useMemo(() => timelineEntries(events, lookup), [events, lookup]);
  const shown = useMemo(() => visibleEntries(entries, { application, categories }, SHOWN), [entries, application, categories]);
  // The layout's applications, then those only events still name (deleted since)
  const options = useMemo(() => {
    const known = new Set(applications);
    const gone = new Set<string>();
    for (const e of entries) for (const a of e.applications) if (!known.has(a)) gone.add(a);
    return [...applications, ...[...gone].sort()];
  }, [applications, entries]);
  const toggle = (c: Category) =>
    setCategories((prev) => {
      const next = new Set(prev);
      if (next.has(c)) next.delete(c);
      else next.add(c);
      return next;
    });
  let lastDay = "";
  return (
    <section className="panel timeline" aria-label="Event timeline" data-testid="event-timeline">
      <div className="panel-head">
        <h3>Event timeline</h3>
        <span className={`tl-conn tl-conn-${connection}`} data-testid="timeline-connection" title={error ?? undefined}>
          {connection === "live"
            ? "● live"
            : connection === "connecting"
              ? "connecting…"
              : connection === "refused"
                ? `refused: ${error ?? ""}`
                : `reconnecting${attempt > 1 ? ` (attempt ${attempt})` : ""}…`}
        </span>
      </div>
      <div className="tl-filters">
        <label>
          Application
          <select data-testid="timeline-app" value={application} onChange={(e) => onApplication(e.target.value)}>
            <option value="">All</option>
            {options.map((a) => (
              <option key={a} value={a}>
                {a}
              </option>
            ))}
          </select>
        </label>
        {CATEGORIES.map((c) => (
          <label key={c.key} className={`tl-cat tl-${c.key}`}>
            <input type="checkbox" data-testid={`timeline-kind-${c.key}`} checked={categories.has(c.key)} onChange={() => toggle(c.key)} />
            {c.label}
          </label>
        ))}
      </div>
      {shown.length === 0 ? (
        <p className="muted">{events.length === 0 ? "No event on this cluster yet." : "No event matches the filter."}</p>
      ) : (
        <ol className="tl-list" reversed>
          {shown.map((e) => {
            const d = day(e.ts);
            const header = d !== lastDay ? d : null;
            lastDay = d;
            return (
              <Fragment key={e.migration?.key ?? e.id}>
                {header && <li className="tl-day">{header}</li>}
                <Entry e={e} onRef={onRef} />
              </Fragment>
            );
          })}
        </ol>
      )}
      {shown.length === SHOWN && <p className="muted tl-more">The {SHOWN} newest matching events are shown.</p>}
    </section>
  );
}
