// The moments a cluster page replays, held in the URL's query after the hash route
// ("#/clusters/rack?at=2026-11-27T10:00:00.000Z&compare=2026-11-27T09:55:00.000Z"), so a link shows the same
// picture. `at`: the moment shown (none: live); `compare`: a second moment whose differences are listed. Pure.

import { hashParams, withHashParams } from "../lib/hashQuery";

export interface ReplayQuery {
  /** ms since the epoch, or null for live. */
  at: number | null;
  compare: number | null;
}

export interface ReplayQueryProblem {
  field: "at" | "compare";
  message: string;
}

export const LIVE: ReplayQuery = { at: null, compare: null };

function moment(value: string | null, field: "at" | "compare", problems: ReplayQueryProblem[]): number | null {
  if (value === null || value === "") return null;
  // Only full ISO times with a zone: "2026-11-27T10:00:00Z" (a bare date or local time would mean another moment
  // in another browser).
  const t = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(value) ? Date.parse(value) : NaN;
  if (Number.isNaN(t)) {
    problems.push({ field, message: `${field}=${value} is not a moment (e.g. 2026-11-27T10:00:00Z)` });
    return null;
  }
  return t;
}

/** The replay moments of a hash ("#/clusters/x?at=…"), and what in it could not be read. */
export function parseReplayQuery(hash: string): { query: ReplayQuery; problems: ReplayQueryProblem[] } {
  const { params } = hashParams(hash);
  const problems: ReplayQueryProblem[] = [];
  const query = { at: moment(params.get("at"), "at", problems), compare: moment(params.get("compare"), "compare", problems) };
  return { query, problems };
}

/** `hash` with its replay moments set to `query` (other query parameters kept; none left: no "?"). */
export function withReplayQuery(hash: string, query: ReplayQuery): string {
  const iso = (t: number | null) => (t === null ? null : new Date(t).toISOString());
  return withHashParams(hash, { at: iso(query.at), compare: iso(query.compare) });
}
