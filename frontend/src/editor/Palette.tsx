import { useState, type DragEvent, type KeyboardEvent } from "react";

import type { ServiceType, TemplateInfo } from "./useCatalog";

export const SERVICE_MIME = "application/x-e3-service";

interface PaletteProps {
  services: ServiceType[];
  templates: TemplateInfo[];
  error: string | null;
  loading: boolean;
  canEdit: boolean;
  onAdd: (service: string) => void;
  onTemplate: (name: string) => void;
}

function suitability(s: ServiceType): { label: string; className: string; title: string } {
  if (s.platforms.length === 1 && s.platforms[0] === "host") {
    return { label: "host only", className: "tag tag-host", title: "Runs only on host processors" };
  }
  const speedup = `SmartNIC/host requests per joule: ${s.smartnic_speedup.toFixed(2)}x (paper Table 1)`;
  return s.suits_smartnic
    ? { label: `SmartNIC ${s.smartnic_speedup.toFixed(1)}x`, className: "tag tag-nic", title: speedup }
    : { label: "host suits", className: "tag tag-hostish", title: speedup };
}

/** Whether `name` matches what was typed in the search box (any part of it, any case). */
export function matchesSearch(name: string, query: string): boolean {
  return name.toLowerCase().includes(query.trim().toLowerCase());
}

/**
 * Microservice types to drag onto the canvas (or, from the keyboard, to focus with Tab and add with
 * Enter or Space), and the paper's applications to load; a search box filters both by name.
 */
export function Palette({ services, templates, error, loading, canEdit, onAdd, onTemplate }: PaletteProps) {
  const [query, setQuery] = useState("");
  const shownServices = services.filter((s) => matchesSearch(s.name, query));
  const shownTemplates = templates.filter((t) => matchesSearch(t.name, query));
  const onDragStart = (event: DragEvent<HTMLElement>, service: string) => {
    event.dataTransfer.setData(SERVICE_MIME, service);
    event.dataTransfer.setData("text/plain", service);
    event.dataTransfer.effectAllowed = "move";
  };
  const onKeyDown = (event: KeyboardEvent<HTMLElement>, service: string) => {
    if (event.key !== "Enter" && event.key !== " ") return;
    event.preventDefault(); // Space would scroll the palette
    if (canEdit) onAdd(service);
  };
  return (
    <aside className="editor-palette" aria-label="Palette">
      <input
        type="search"
        className="palette-search"
        data-testid="palette-search"
        placeholder="Search services and templates"
        aria-label="Search services and templates"
        value={query}
        onChange={(e) => setQuery(e.target.value)}
      />
      <h3>Microservices</h3>
      {loading && <p className="muted">Loading the catalogue…</p>}
      {error && <p className="error">{error}</p>}
      <ul className="palette-list">
        {shownServices.map((s) => {
          const tag = suitability(s);
          return (
            <li key={s.name}>
              {/* The list item stays a list item; the button inside it (a div: it is also a drag source) is named
                  by its visible text, so what a screen reader says is what a person reads. */}
              <div
                data-testid={`palette-${s.name}`}
                className="palette-item"
                role="button"
                tabIndex={canEdit ? 0 : undefined}
                aria-disabled={!canEdit}
                aria-description="add to the canvas"
                draggable={canEdit}
                onDragStart={(e) => onDragStart(e, s.name)}
                onDoubleClick={() => canEdit && onAdd(s.name)}
                onKeyDown={(e) => onKeyDown(e, s.name)}
                title={`${s.description}\nDrag onto the canvas, or double-click (Enter when focused) to add.`}
              >
                <span className="palette-name">{s.name}</span>
                <span className={tag.className} title={tag.title}>
                  {tag.label}
                </span>
              </div>
            </li>
          );
        })}
      </ul>
      {!loading && query && shownServices.length === 0 && <p className="muted small">No service matches “{query}”.</p>}
      <h3>Paper templates</h3>
      <ul className="palette-list">
        {shownTemplates.map((t) => (
          <li key={t.name}>
            <button
              type="button"
              className="template-button"
              data-testid={`template-${t.name}`}
              onClick={() => onTemplate(t.name)}
              title={t.description}
            >
              {t.name} <span className="muted">({t.instances} instances)</span>
            </button>
          </li>
        ))}
      </ul>
      {query && templates.length > 0 && shownTemplates.length === 0 && <p className="muted small">No template matches “{query}”.</p>}
    </aside>
  );
}
