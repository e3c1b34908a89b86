import { useCallback, useEffect, useRef, useState } from "react";
import type { PageQuery } from "../api/client";
import type { ListPage } from "../api/types";
import { describeError } from "../lib/errors";
import { DEFAULT_PAGE_SIZE, type PageWindow, clampOffset, pageWindow } from "../lib/pagination";

export interface PageState<T> {
  items: T[];
  total: number;
  offset: number;
  limit: number;
  /** First load, or a page change (the previous page stays on screen meanwhile). */
  loading: boolean;
  error: string | null;
  range: PageWindow;
  prev: () => void;
  next: () => void;
  /** Fetches the current page again (e.g. polling running jobs). */
  reload: () => void;
}

export type PageFetcher<T> = (query: PageQuery, signal: AbortSignal) => Promise<ListPage<T>>;

/**
 * One page of a `limit`/`offset` list endpoint. `key` names what is listed (e.g.
 * "versions:my-app"); a new key starts again at the first page. `fetchPage` may be a
 * new function each render: only `key`, the offset and reloads trigger a fetch.
 */
export function usePage<T>(key: string, fetchPage: PageFetcher<T>, limit = DEFAULT_PAGE_SIZE): PageState<T> {
  const fetchRef = useRef(fetchPage);
  fetchRef.current = fetchPage;
  const [offset, setOffset] = useState(0);
  const [reloads, setReloads] = useState(0);
  const [state, setState] = useState<{ key: string; items: T[]; total: number; loading: boolean; error: string | null }>(
    { key, items: [], total: 0, loading: true, error: null },
  );

  // A new list starts at its first page.
  const [shownKey, setShownKey] = useState(key);
  if (shownKey !== key) {
    setShownKey(key);
    setOffset(0);
    setState({ key, items: [], total: 0, loading: true, error: null });
  }

  useEffect(() => {
    const controller = new AbortController();
    setState((s) => ({ ...s, loading: true }));
    fetchRef.current({ limit, offset }, controller.signal).then(
      (page) => {
        if (controller.signal.aborted) return;
        const clamped = clampOffset(offset, limit, page.total);
        if (clamped !== offset) {
          setOffset(clamped); // the list shrank under us: show its last page instead
          return;
        }
        setState({ key, items: page.items, total: page.total, loading: false, error: null });
      },
      (error: unknown) => {
        if (controller.signal.aborted) return;
        setState((s) => ({ ...s, loading: false, error: describeError(error) }));
      },
    );
    return () => controller.abort();
  }, [key, offset, limit, reloads]);

  const range = pageWindow(state.total, limit, offset, state.items.length);
  const { hasPrev, hasNext, prevOffset, nextOffset } = range;
  const prev = useCallback(() => {
    if (hasPrev) setOffset(prevOffset);
  }, [hasPrev, prevOffset]);
  const next = useCallback(() => {
    if (hasNext) setOffset(nextOffset);
  }, [hasNext, nextOffset]);
  const reload = useCallback(() => setReloads((n) => n + 1), []);

  return { items: state.items, total: state.total, offset, limit, loading: state.loading, error: state.error, range, prev, next, reload };
}
