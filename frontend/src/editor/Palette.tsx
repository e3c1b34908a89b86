import type { DragEvent } from "react";

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

/** Microservice types to drag onto the canvas, and the paper's applications to load. */
export function Palette({ services, templates, error, loading, canEdit, onAdd, onTemplate }: PaletteProps) {
  const onDragStart = (event: DragEvent<HTMLElement>, service: string) => {
    event.dataTransfer.setData(SERVICE_MIME, service);
    event.dataTransfer.setData("text/plain", service);
    event.dataTransfer.effectAllowed = "move";
  };
  return (
    <aside className="editor-palette">
      <h3>Microservices</h3>
      {loading && <p className="muted">Loading the catalogue…</p>}
      {error && <p className="error">{error}</p>}
      <ul className="palette-list">
        {services.map((s) => {
          const tag = suitability(s);
          return (
            <li
              key={s.name}
              data-testid={`palette-${s.name}`}
              className="palette-item"
              draggable={canEdit}
              onDragStart={(e) => onDragStart(e, s.name)}
              onDoubleClick={() => canEdit && onAdd(s.name)}
              title={`${s.description}\nDrag onto the canvas (or double-click) to add.`}
            >
              <span className="palette-name">{s.name}</span>
              <span className={tag.className} title={tag.title}>
                {tag.label}
              </span>
            </li>
          );
        })}
      </ul>
      <h3>Paper templates</h3>
      <ul className="palette-list">
        {templates.map((t) => (
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
    </aside>
  );
}
