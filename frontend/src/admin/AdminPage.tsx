import { OrchestratorPanel } from "./OrchestratorPanel";
import { TokensPanel } from "./TokensPanel";

interface Props {
  /** Scope deploy: may set the orchestrator's mode (the API's rule). */
  canDeploy: boolean;
  /** Scope admin: may list, create and revoke tokens. */
  canAdmin: boolean;
}

/** Operating E3 itself: the orchestrator's mode and the API tokens. */
export function AdminPage({ canDeploy, canAdmin }: Props) {
  return (
    <div className="admin-page">
      <OrchestratorPanel canChange={canDeploy} />
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
