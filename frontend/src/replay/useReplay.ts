import { useEffect, useMemo, useState } from "react";

import { type MomentDiff, diffMoments } from "./momentDiff";
import type { ReplayQuery, ReplayQueryProblem } from "./replayQuery";
import { type MomentState, useMoment } from "./useMoment";
import { useReplayQuery } from "./useReplayQuery";

export interface ReplayState {
  query: ReplayQuery;
  problems: ReplayQueryProblem[];
  setQuery: (query: ReplayQuery, options?: { replace?: boolean }) => void;
  /** The moment shown (when `query.at` is set). */
  shown: MomentState;
  /** The moment compared with (when `query.compare` is set). */
  compared: MomentState;
  /** Compared with: the differences from the earlier moment to the later (the present when live). */
  diff: MomentDiff | null;
  diffLoading: boolean;
  diffError: string | null;
}

/** The cluster page's replay: the moment it shows, and the one it is compared with. Live and comparing, the
 * present is read again whenever the live placement is (`liveArrivedAt`). */
export function useReplay(cluster: string, liveArrivedAt: number | null): ReplayState {
  const { query, problems, setQuery } = useReplayQuery();
  const shown = useMoment(cluster, query.at);
  const compared = useMoment(cluster, query.compare);
  const [presentAt, setPresentAt] = useState<number | null>(null);
  const liveCompare = query.at === null && query.compare !== null;
  useEffect(() => setPresentAt(liveCompare ? Date.now() : null), [liveCompare, query.compare, liveArrivedAt]);
  const present = useMoment(cluster, presentAt);
  const other = query.at !== null ? shown : present;
  const diff = useMemo(
    () => (compared.moment && other.moment ? diffMoments(compared.moment, other.moment) : null),
    [compared.moment, other.moment],
  );
  return {
    query,
    problems,
    setQuery,
    shown,
    compared,
    diff: query.compare === null ? null : diff,
    diffLoading: compared.loading || other.loading,
    diffError: compared.error ?? other.error,
  };
}
