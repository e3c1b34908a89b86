import { useState } from "react";
import { type Column, PagedTable } from "../components/PagedTable";
import { rowAction } from "../components/rowAction";
import { usePage } from "../hooks/usePage";
import { formatTime } from "../lib/format";
import { formatScopes } from "../lib/scopes";
import { type TokenCreated, type TokenRow, listTokens } from "./adminApi";
import { NewTokenForm } from "./NewTokenForm";
import { RevokeTokenDialog } from "./RevokeTokenDialog";
import { TokenSecret } from "./TokenSecret";
import { tokenState } from "./tokenForm";

const columns: Column<TokenRow>[] = [
  { header: "Name", cell: (t) => t.name },
  { header: "Prefix", cell: (t) => <code>{t.prefix}…</code> },
  { header: "Scopes", cell: (t) => formatScopes(t.scopes) },
  {
    header: "Created",
    cell: (t) => (
      <>
        {formatTime(t.created_at)}
        {t.created_by !== null && <span className="muted"> by {t.created_by}</span>}
      </>
    ),
    className: "nowrap",
  },
  { header: "Expires", cell: (t) => (t.expires_at === null ? <span className="muted">never</span> : formatTime(t.expires_at)), className: "nowrap" },
  { header: "Last used", cell: (t) => formatTime(t.last_used_at), className: "nowrap" },
  {
    header: "State",
    cell: (t) => {
      const { state, label } = tokenState(t, new Date());
      return (
        <span className={`badge ${state === "active" ? "ok" : "bad"}`} data-testid={`token-state-${t.name}`}>
          {label}
        </span>
      );
    },
    className: "nowrap",
  },
];

/** The API's tokens: listed (never their secrets), created (the secret shown once), revoked. */
export function TokensPanel() {
  const page = usePage("tokens", listTokens);
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<TokenCreated | null>(null);
  const [revoking, setRevoking] = useState<TokenRow | null>(null);

  const actions = rowAction<TokenRow>("revoke", "token", (t) => t.name, setRevoking, (t) => t.revoked_at === null);

  return (
    <section className="panel" aria-labelledby="tokens-title" data-testid="tokens-panel">
      <div className="panel-head">
        <h2 id="tokens-title">API tokens</h2>
        {!creating && (
          <button type="button" data-testid="new-token" onClick={() => { setCreating(true); setCreated(null); }}>
            New token
          </button>
        )}
      </div>
      {creating && (
        <NewTokenForm
          onCreated={(token) => {
            setCreating(false);
            setCreated(token);
            page.reload();
          }}
          onCancel={() => setCreating(false)}
        />
      )}
      {created !== null && <TokenSecret token={created} onDone={() => setCreated(null)} />}
      <PagedTable kind="tokens" page={page} columns={[...columns, actions]} rowKey={(t) => t.id} empty="No tokens." />
      {revoking !== null && (
        <RevokeTokenDialog
          token={revoking}
          onRevoked={() => {
            setRevoking(null);
            page.reload();
          }}
          onCancel={() => setRevoking(null)}
        />
      )}
    </section>
  );
}
