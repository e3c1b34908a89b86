import { useEffect, useState } from "react";

import { localTime, toLocalInput } from "../energy/timeRange";
import { formatTime } from "../lib/format";
import type { ReplayQuery, ReplayQueryProblem } from "./replayQuery";
import { BEFORE_MS, type ReplayMark, groupMarks } from "./replayMarks";
import "./replay.css";

/** How far back the slider reaches. */
export const SPANS = [
  { id: "15m", label: "15 min", ms: 15 * 60_000 },
  { id: "1h", label: "1 h", ms: 3600_000 },
  { id: "6h", label: "6 h", ms: 6 * 3600_000 },
  { id: "24h", label: "24 h", ms: 86400_000 },
  { id: "7d", label: "7 d", ms: 7 * 86400_000 },
] as const;
const STEPS = [{ label: "−1 min", ms: -60_000 }, { label: "−10 s", ms: -10_000 }, { label: "+10 s", ms: 10_000 },
               { label: "+1 min", ms: 60_000 }];
/** Live, "compare" starts this long before now (a past moment shown is compared with now). */
const COMPARE_BEFORE_MS = 5 * 60_000;

const iso = (t: number | null) => (t === null ? "" : new Date(t).toISOString());
const localInput = (t: number) => toLocalInput(t, { seconds: true });

function useNow(everyMs: number): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(timer);
  }, [everyMs]);
  return now;
}

export interface ReplayBarProps {
  query: ReplayQuery;
  setQuery: (query: ReplayQuery, options?: { replace?: boolean }) => void;
  problems: ReplayQueryProblem[];
  /** The events the track marks (replayMarks), over any window: those outside the slider's are not drawn. */
  marks: (t0: number, t1: number) => ReplayMark[];
  loading: boolean;
  error: string | null;
  /** The moment shown's placement is known (null: live, or not read yet), and since when it is recorded. */
  placementKnown: boolean | null;
  recordedSince: string | null;
}

/** Live, or a past moment of the cluster: a slider over the last minutes … days with the placement's changes
 * marked on it, exact time and steps, and a second moment to compare with. The moments are in the URL. */
export function ReplayBar({ query, setQuery, problems, marks, loading, error, placementKnown, recordedSince }: ReplayBarProps) {
  const now = useNow(5_000);
  const [span, setSpan] = useState<(typeof SPANS)[number]["id"]>("1h");
  const spanMs = SPANS.find((s) => s.id === span)?.ms ?? 3600_000;
  const at = query.at;
  // A link to a moment older than the span widens the slider to it.
  const t0 = Math.min(now - spanMs, at ?? now, query.compare ?? now);
  const t1 = Math.max(now, at ?? 0);
  const shownMarks = marks(t0, t1);
  const groups = groupMarks(shownMarks, t0, t1);
  const go = (t: number | null, replace = false) =>
    setQuery({ at: t === null ? null : Math.min(Date.now(), Math.round(t)), compare: query.compare }, { replace });
  const compareWith = (t: number | null) => setQuery({ at, compare: t === null ? null : Math.round(t) });

  return (
    <section className="replay-bar" aria-label="Replay" data-testid="replay-bar" data-at={iso(at)}
             data-compare={iso(query.compare)} data-loading={loading ? "true" : "false"}>
      <div className="replay-row">
        {at === null ? (
          <>
            <span className="replay-live" data-testid="replay-live">● Live</span>
            <button type="button" onClick={() => go(Date.now() - 60_000)}>Replay…</button>
          </>
        ) : (
          <>
            <span className="replay-moment" data-testid="replay-moment">Replaying {formatTime(iso(at))}</span>
            <button type="button" onClick={() => go(null)} data-testid="replay-back-live">Back to live</button>
          </>
        )}
        <label className="replay-span">
          Slider over the last{" "}
          <select value={span} onChange={(e) => setSpan(e.target.value as typeof span)} aria-label="Slider span">
            {SPANS.map((s) => <option key={s.id} value={s.id}>{s.label}</option>)}
          </select>
        </label>
        {query.compare === null ? (
          <button type="button" onClick={() => compareWith(at === null ? Date.now() - COMPARE_BEFORE_MS : Date.now())}
                  data-testid="replay-compare">{at === null ? "Compare with 5 min ago" : "Compare with now"}</button>
        ) : (
          <label className="replay-compare">
            Compare with{" "}
            <input type="datetime-local" step={1} value={localInput(query.compare)} aria-label="Compare with moment"
                   data-testid="replay-compare-input"
                   onChange={(e) => { const t = localTime(e.target.value); if (t !== null) compareWith(t); }} />
            <button type="button" onClick={() => compareWith(null)}>Stop comparing</button>
          </label>
        )}
      </div>
      <div className="replay-row">
        <div className="replay-track">
          <input type="range" className="replay-slider" aria-label="Moment" min={t0} max={t1} step={1000}
                 value={at ?? t1} aria-valuetext={at === null ? "live" : formatTime(iso(at))}
                 onChange={(e) => go(Number(e.target.value), true)} data-testid="replay-slider" />
          <div className="replay-marks">
            {groups.map((g) => {
              const when = formatTime(iso(g.t));
              const what = g.marks.map((m) => m.text).join("; ");
              return (
                <button key={g.marks[0]?.id} type="button" className={`replay-mark replay-mark-${g.category}`}
                        style={{ left: `${g.percent}%` }}
                        title={`${when}: ${what}. Show just before${g.marks.length > 1 ? " the first" : ""}.`}
                        aria-label={`Just before ${g.marks.length > 1 ? `${g.marks.length} changes from ` : ""}${when}: ${what}`}
                        data-testid="replay-mark" data-kinds={g.marks.map((m) => m.kind).join(" ")}
                        onClick={() => go(g.t - BEFORE_MS)} />
              );
            })}
          </div>
        </div>
        {shownMarks.length > 0 && (
          <select value="" aria-label="Just before a change" data-testid="replay-changes"
                  onChange={(e) => {
                    const mark = shownMarks.find((m) => String(m.id) === e.target.value);
                    if (mark) go(mark.t - BEFORE_MS);
                  }}>
            <option value="">Just before a change… ({shownMarks.length})</option>
            {[...shownMarks].reverse().map((m) => (
              <option key={m.id} value={m.id} data-kind={m.kind}>{formatTime(iso(m.t))} {m.text}</option>
            ))}
          </select>
        )}
        {at !== null && (
          <>
            {STEPS.map((s) => (
              <button key={s.label} type="button" onClick={() => go(at + s.ms)}>{s.label}</button>
            ))}
            <input type="datetime-local" step={1} value={localInput(at)} aria-label="Moment (local time)"
                   data-testid="replay-input"
                   onChange={(e) => { const t = localTime(e.target.value); if (t !== null) go(t); }} />
          </>
        )}
      </div>
      {problems.map((p) => <p key={p.field} className="error" role="alert">The link's {p.message}; showing {p.field === "at" ? "live" : "no comparison"}.</p>)}
      {error && <p className="error" role="alert">Could not read the cluster at that moment: {error}</p>}
      {at !== null && placementKnown === false && (
        <p className="replay-note" role="status" data-testid="replay-unknown">
          No placement is recorded before {recordedSince ? formatTime(recordedSince) : "any change"}: the drawing has
          no instances because none is known then, not because none ran.
        </p>
      )}
      {at !== null && (
        <p className="replay-note muted">
          A past moment: placement and node states as recorded then; live colours, dragging and moves are off.
        </p>
      )}
    </section>
  );
}
