import type { ReactNode } from "react";
import type { PageState } from "../hooks/usePage";

export interface Column<T> {
  header: string;
  cell: (item: T) => ReactNode;
  /** A class for the column's cells, e.g. "num" for right-aligned figures. */
  className?: string;
}

interface Props<T> {
  /** Names the test ids: the table is `list-<kind>`, each row `row-<kind>-<rowKey>`. */
  kind: string;
  page: PageState<T>;
  columns: Column<T>[];
  rowKey: (item: T) => string;
  /** Shown instead of the table when the list is empty. */
  empty: ReactNode;
  caption?: string;
}

/** A paginated list: a table of the current page with previous/next and "n–m of total". */
export function PagedTable<T>({ kind, page, columns, rowKey, empty, caption }: Props<T>) {
  const { range } = page;
  return (
    <div className="paged">
      {page.error !== null && (
        <p className="error" role="alert">
          {page.error}
        </p>
      )}
      {/* Focusable: a narrow window scrolls a wide table sideways, and a keyboard must be able to as well. */}
      <div className="table-scroll" tabIndex={0} role="region" aria-label={`${kind} list`}>
        <table className="list" data-testid={`list-${kind}`} aria-busy={page.loading}>
          {caption !== undefined && <caption>{caption}</caption>}
          <thead>
            <tr>
              {columns.map((c) => (
                <th key={c.header} scope="col" className={c.className}>
                  {c.header}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {page.items.map((item) => {
              const key = rowKey(item);
              return (
                <tr key={key} data-testid={`row-${kind}-${key}`}>
                  {columns.map((c) => (
                    <td key={c.header} className={c.className}>
                      {c.cell(item)}
                    </td>
                  ))}
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      {page.items.length === 0 && page.error === null && (
        <p className="muted list-empty">{page.loading ? "Loading…" : empty}</p>
      )}
      <nav className="pager" aria-label="Pages">
        <button type="button" data-testid="page-prev" onClick={page.prev} disabled={!range.hasPrev}>
          ← Previous
        </button>
        <span className="pager-range" aria-live="polite">
          {range.label}
        </span>
        <button type="button" data-testid="page-next" onClick={page.next} disabled={!range.hasNext}>
          Next →
        </button>
      </nav>
    </div>
  );
}
