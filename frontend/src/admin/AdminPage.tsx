import { OrchestratorPanel } from "./OrchestratorPanel";
import { TokensPanel } from "./TokensPanel";

interface Props {
  /** Scope admin: may set the orchestrator's mode, and list, create and revoke tokens (the API's rule). */
  canAdmin: boolean;
}

/** Operating E3 itself: the orchestrator's mode and the API tokens. */
export function AdminPage({ canAdmin }: Props) {
  return (
    <div className="admin-page">
      <OrchestratorPanel canChange={canAdmin} />
      {canAdmin ? (
        <TokensPanel />
      ) : (
        <section className="panel">
          <h2>API tokens</h2>
          <p className="muted">Tokens are listed, created and revoked with a token that has scope admin.</p>
        </section>
      )}
    </div>
  );
}
