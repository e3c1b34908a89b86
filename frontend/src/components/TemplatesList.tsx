import type { TemplatesState } from "../hooks/useTemplates";
import { routeHref } from "../lib/route";
import { formatInstances } from "../lib/templates";

/** The paper's templates; each opens the editor on it (`#/templates/<name>`). */
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
              <a
                className="template-link"
                href={routeHref({ name: "template", template: t.name })}
                data-testid={`home-template-${t.name}`}
              >
                <code>{t.name}</code>
              </a>{" "}
              <span className="muted">{formatInstances(t.instances)}</span>
              <div>{t.description}</div>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
