import { type FormEvent, useState } from "react";
import type { Session } from "../hooks/useSession";
import { formatScopes } from "../lib/scopes";
import { maskToken } from "../lib/token";

function statusLine(session: Session): string {
  const { token, source, status, me } = session;
  if (token === null) return "Not signed in.";
  const which = source === "local" ? `the local-mode token ${maskToken(token)}` : `token ${maskToken(token)}`;
  if (status === "checking") return `Checking ${which}…`;
  if (status === "signed-in" && me !== null) return `Signed in as ${me.name} (${formatScopes(me.scopes)}) with ${which}.`;
  if (status === "refused") return `The API refused ${which}.`;
  return `Using ${which}.`;
}

/** The token form: paste a bearer token (kept in localStorage `e3.token`), or sign out. */
export function TokenBox({ session, wide = false }: { session: Session; wide?: boolean }) {
  const [input, setInput] = useState("");

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (session.signIn(input)) setInput("");
  };

  return (
    <section className={`panel${wide ? " wide" : ""}`} aria-labelledby="token-title">
      <h2 id="token-title">Sign in</h2>
      <form className="token-form" onSubmit={submit}>
        <label htmlFor="token-input">API token</label>
        <input
          id="token-input"
          data-testid="token-input"
          type="password"
          autoComplete="off"
          spellCheck={false}
          placeholder="Paste a bearer token (e3_…)"
          value={input}
          onChange={(event) => setInput(event.target.value)}
        />
        <button type="submit" data-testid="sign-in" disabled={input.trim() === ""}>
          Sign in
        </button>
      </form>
      <p className="muted">
        {statusLine(session)}{" "}
        {session.source === "stored" && (
          <button type="button" className="link" onClick={session.signOut}>
            Sign out
          </button>
        )}
      </p>
      {session.message !== null && (session.status === "refused" || session.status === "error") && (
        <p className="error" role="alert">
          {session.message}
        </p>
      )}
    </section>
  );
}
