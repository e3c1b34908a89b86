import { useDeferredValue, useId, useMemo, useState } from "react";

import type { ClusterLayoutData } from "../viz/clusterLayout";
import { type SearchHit, searchCluster } from "./clusterSearch";

export interface ClusterSearchProps {
  layout: ClusterLayoutData | null;
  onPick: (hit: SearchHit) => void;
}

const keyOf = (h: SearchHit) => (h.kind === "node" ? `n${h.node}` : h.kind === "instance" ? `i${h.instance}` : `a${h.application}`);

/** A search box over the drawing's nodes, servers, instances and applications: a hit shows it (centred, pinned,
 * or the application filter set). Enter takes the first hit; Esc clears. */
export function ClusterSearch({ layout, onPick }: ClusterSearchProps) {
  const [query, setQuery] = useState("");
  const deferred = useDeferredValue(query); // typing stays quick at 100,000 instances
  const hits = useMemo(() => (layout ? searchCluster(layout, deferred) : []), [layout, deferred]);
  const listId = useId();
  const inputId = useId();
  const pick = (hit: SearchHit) => {
    onPick(hit);
    setQuery("");
  };
  const open = query.trim().length >= 2;
  return (
    <div className="cluster-search">
      <label htmlFor={inputId}>Find</label>{" "}
      <input
        id={inputId}
        type="search"
        value={query}
        aria-label="Find a node, instance or application"
        title="A node or server name, an instance (e.g. kv shard 3, or an id's start) or an application"
        aria-controls={listId}
        aria-expanded={open}
        data-testid="cluster-search"
        onChange={(e) => setQuery(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === "Enter" && hits[0]) pick(hits[0]);
          if (e.key === "Escape") setQuery("");
        }}
      />
      {open && (
        <ul id={listId} className="cluster-search-hits" data-testid="cluster-search-hits">
          {hits.length === 0 && <li className="muted">No node, instance or application matches.</li>}
          {hits.map((h) => (
            <li key={keyOf(h)}>
              <button type="button" onClick={() => pick(h)} data-kind={h.kind}>
                <strong>{h.label}</strong> <span className="muted">{h.detail}</span>
              </button>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
