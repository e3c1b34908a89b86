import { type FormEvent, useState } from "react";
import type { TokenState } from "../hooks/useToken";
import { maskToken } from "../lib/token";

interface Props {
  auth: TokenState;
  authError: string | null;
}

export function TokenBox({ auth, authError }: Props) {
  const [input, setInput] = useState("");

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (auth.signIn(input)) setInput("");
  };

  return (
    <section className="panel" aria-labelledby="token-title">
      <h2 id="token-title">Sign in</h2>
      <form className="token-form" onSubmit={submit}>
        <label htmlFor="token-input">API token</label>
        <input
          id="token-input"
          type="password"
          autoComplete="off"
          spellCheck={false}
          placeholder="Paste a bearer token"
          value={input}
          onChange={(event) => setInput(event.target.value)}
        />
        <button type="submit" disabled={input.trim() === ""}>
          Sign in
        </button>
      </form>
      <p className="muted">
        {auth.token === null
          ? "Not signed in."
          : auth.source === "local"
            ? `Using the local-mode token ${maskToken(auth.token)}.`
            : `Signed in with token ${maskToken(auth.token)}.`}{" "}
        {auth.source === "stored" && (
          <button type="button" className="link" onClick={auth.signOut}>
            Sign out
          </button>
        )}
      </p>
      {authError !== null && (
        <p className="error" role="alert">
          {authError}
        </p>
      )}
    </section>
  );
}
