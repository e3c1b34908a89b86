import { type FormEvent, useState } from "react";
import type { Session } from "../hooks/useSession";
import { formatScopes } from "../lib/scopes";
import { maskToken } from "../lib/token";

function statusLine(session: Session): string {
  const { token, source, status, me, signedOut } = session;
  if (token === null) return signedOut ? "Signed out." : "Not signed in.";
  const which = source === "local" ? `the local-mode token ${maskToken(token)}` : `token ${maskToken(token)}`;
  if (status === "checking") return `Checking ${which}…`;
  if (status === "signed-in" && me !== null) return `Signed in as ${me.name} (${formatScopes(me.scopes)}) with ${which}.`;
  if (status === "refused") return `The API refused ${which}.`;
  return `Using ${which}.`;
}

/**
 * Signed in (or checking the token): who, and "Sign out". Otherwise the token form: paste a bearer token
 * (kept in localStorage `e3.token`) or, after a sign-out, take the local-mode token again.
 */
export function TokenBox({ session, wide = false }: { session: Session; wide?: boolean }) {
  const [input, setInput] = useState("");
  const signedIn = session.token !== null && session.status !== "refused";

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (session.signIn(input)) setInput("");
  };

  const signOut = (
    <button type="button" className="link" data-testid="sign-out" onClick={session.signOut}>
      Sign out
    </button>
  );

  return (
    <section className={`panel${wide ? " wide" : ""}`} aria-labelledby="token-title">
      <h2 id="token-title">{signedIn ? "Signed in" : "Sign in"}</h2>
      {signedIn ? (
        <p data-testid="session-line">
          {statusLine(session)} {signOut}
        </p>
      ) : (
        <>
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
          <p className="muted" data-testid="session-line">
            {statusLine(session)} {session.token !== null && signOut}
          </p>
          {session.signedOut && (
            <p className="token-local">
              <button type="button" className="secondary" data-testid="sign-in-local" onClick={session.signInLocal}>
                Sign in as local admin
              </button>{" "}
              <span className="muted">where <code>e3 up</code> runs in local mode, from a browser on its machine</span>
            </p>
          )}
          {session.localMessage !== null && (
            <p className="error" role="alert">
              {session.localMessage}
            </p>
          )}
        </>
      )}
      {session.message !== null && (session.status === "refused" || session.status === "error") && (
        <p className="error" role="alert">
          {session.message}
        </p>
      )}
    </section>
  );
}
