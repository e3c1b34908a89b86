import { useCallback, useMemo } from "react";

import { useHash } from "../hooks/useHash";
import { type ReplayQuery, type ReplayQueryProblem, parseReplayQuery, withReplayQuery } from "./replayQuery";

export interface ReplayQueryState {
  query: ReplayQuery;
  problems: ReplayQueryProblem[];
  /** Sets the moments in the URL: a new history entry (Back returns), or in place (`replace`: a slider's drag). */
  setQuery: (query: ReplayQuery, options?: { replace?: boolean }) => void;
}

/** The replay moments of the page's URL, following its changes (links, Back). */
export function useReplayQuery(): ReplayQueryState {
  const { hash, setHash } = useHash();
  const parsed = useMemo(() => parseReplayQuery(hash), [hash]);
  const setQuery = useCallback(
    (query: ReplayQuery, options?: { replace?: boolean }) => setHash(withReplayQuery(window.location.hash, query), options),
    [setHash],
  );
  return { ...parsed, setQuery };
}
