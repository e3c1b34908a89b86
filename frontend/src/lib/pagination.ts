// Offset/limit paging arithmetic for the list views.

export const DEFAULT_PAGE_SIZE = 25;

export interface PageWindow {
  /** 1-based index of the first item shown; 0 when nothing is shown. */
  from: number;
  /** 1-based index of the last item shown; 0 when nothing is shown. */
  to: number;
  total: number;
  hasPrev: boolean;
  hasNext: boolean;
  prevOffset: number;
  nextOffset: number;
  /** "26–50 of 120", "0 of 0". */
  label: string;
}

/** What a page at `offset` that came back with `count` items out of `total` covers. */
export function pageWindow(total: number, limit: number, offset: number, count: number): PageWindow {
  const size = Math.max(1, Math.floor(limit));
  const start = Math.max(0, Math.floor(offset));
  const shown = Math.max(0, Math.min(count, total - start));
  const from = shown === 0 ? 0 : start + 1;
  const to = shown === 0 ? 0 : start + shown;
  const fmt = (n: number) => n.toLocaleString("en-US");
  return {
    from,
    to,
    total,
    hasPrev: start > 0,
    hasNext: start + size < total,
    prevOffset: Math.max(0, start - size),
    nextOffset: start + size,
    label: shown === 0 ? `0 of ${fmt(total)}` : `${fmt(from)}–${fmt(to)} of ${fmt(total)}`,
  };
}

/**
 * An offset that still shows something after the total shrank (items deleted while
 * paging): the start of the last page, or 0 for an empty list. Otherwise `offset` itself.
 */
export function clampOffset(offset: number, limit: number, total: number): number {
  const size = Math.max(1, Math.floor(limit));
  if (total <= 0) return 0;
  if (offset < total) return Math.max(0, offset);
  return Math.floor((total - 1) / size) * size;
}
