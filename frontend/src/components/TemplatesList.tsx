import type { TemplatesState } from "../hooks/useTemplates";
import { formatInstances } from "../lib/templates";

export function TemplatesList({ state }: { state: TemplatesState }) {
  return (
    <section className="panel wide" aria-labelledby="templates-title">
      <h2 id="templates-title">Paper application templates</h2>
      {state.error !== null && <p className="muted">{state.error}</p>}
      {state.error === null && state.templates.length === 0 && (
        <p className="muted">{state.loading ? "Loading…" : "No templates."}</p>
      )}
      {state.templates.length > 0 && (
        <ul className="templates">
          {state.templates.map((t) => (
            <li key={t.name}>
              <code>{t.name}</code> <span className="muted">{formatInstances(t.instances)}</span>
              <div>{t.description}</div>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
