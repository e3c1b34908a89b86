import { useState } from "react";
import { formatScopes } from "../lib/scopes";
import type { TokenCreated } from "./adminApi";

type Copied = "no" | "yes" | "failed";

/** The new token's secret, shown this once (the API keeps only its hash), with a copy button. */
export function TokenSecret({ token, onDone }: { token: TokenCreated; onDone: () => void }) {
  const [copied, setCopied] = useState<Copied>("no");
  const copy = () => {
    // The clipboard API needs a secure context (https or localhost); otherwise the secret is selectable by hand.
    const write = navigator.clipboard?.writeText(token.token) ?? Promise.reject(new Error("no clipboard"));
    write.then(
      () => setCopied("yes"),
      () => setCopied("failed"),
    );
  };
  return (
    <div className="panel token-secret" role="status" data-testid="token-secret-panel">
      <h3>
        Token {token.name} created ({formatScopes(token.scopes)})
      </h3>
      <p className="warning">
        <strong>Copy the secret now: you will not see it again.</strong> E3 keeps only its hash; if it is lost,
        revoke the token and create another.
      </p>
      <div className="secret-row">
        <code data-testid="token-secret">{token.token}</code>
        <button type="button" data-testid="copy-secret" onClick={copy}>
          {copied === "yes" ? "Copied" : "Copy"}
        </button>
      </div>
      {copied === "failed" && <p className="error">The browser refused the clipboard: select the secret and copy it.</p>}
      <button type="button" className="secondary" data-testid="secret-done" onClick={onDone}>
        I have stored it
      </button>
    </div>
  );
}
