import type { Session } from "../hooks/useSession";
import { NAV_LABELS, NAV_SECTIONS, type NavSection } from "../lib/route";
import { formatScopes } from "../lib/scopes";

/** Admin holds the orchestrator's mode (scope deploy) and the tokens (scope admin): linked for tokens that may use it. */
function shows(section: NavSection, session: Session): boolean {
  return section !== "admin" || session.can("deploy");
}

/** The top bar: title (home link), one link per section, who is signed in. */
export function Header({ active, session }: { active: NavSection | null; session: Session }) {
  const { me, status } = session;
  return (
    <header className="shell-header">
      <a className="shell-title" href="#/">
        E3 control plane
      </a>
      <nav className="shell-nav" aria-label="Sections">
        {NAV_SECTIONS.filter((section) => shows(section, session)).map((section) => (
          <a
            key={section}
            href={`#/${section}`}
            data-testid={`nav-${section}`}
            aria-current={active === section ? "page" : undefined}
          >
            {NAV_LABELS[section]}
          </a>
        ))}
      </nav>
      <div className="shell-user">
        {status === "signed-in" && me !== null ? (
          <span data-testid="signed-in-as" title={`Scopes: ${formatScopes(me.scopes)}`}>
            {me.name} <span className="scopes">{formatScopes(me.scopes)}</span>
          </span>
        ) : (
          <a href="#/" className="muted">
            {status === "checking" ? "Checking token…" : "Not signed in"}
          </a>
        )}
        <a href="/docs" className="muted">
          API docs
        </a>
      </div>
    </header>
  );
}
