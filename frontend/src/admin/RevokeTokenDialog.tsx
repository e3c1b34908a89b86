import { ConfirmDialog } from "../components/ConfirmDialog";
import { formatScopes } from "../lib/scopes";
import { type TokenRow, revokeToken } from "./adminApi";

interface Props {
  token: TokenRow;
  onRevoked: () => void;
  onCancel: () => void;
}

/** Asks before revoking a token: whoever holds it is refused from then on. */
export function RevokeTokenDialog({ token, onRevoked, onCancel }: Props) {
  return (
    <ConfirmDialog
      title={`Revoke token ${token.name}?`}
      confirmLabel="Revoke token"
      onConfirm={async () => {
        await revokeToken(token.id);
      }}
      onDone={onRevoked}
      onCancel={onCancel}
    >
      <p data-testid="confirm-what">
        The token <strong>{token.name}</strong> (<code>{token.prefix}…</code>, {formatScopes(token.scopes)}) stops
        working at once: every program or person using it is refused from then on. It cannot be undone.
      </p>
    </ConfirmDialog>
  );
}
