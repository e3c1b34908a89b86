import { useCallback, useEffect, useState } from "react";
import { getLocalToken } from "../api/client";
import { loadToken, normalizeToken, saveToken } from "../lib/token";

export type TokenSource = "stored" | "local";

export interface TokenState {
  token: string | null;
  source: TokenSource | null;
  /** Stores the pasted token; false if it was empty. */
  signIn: (input: string) => boolean;
  /** Forgets the stored token (the local-mode token, if any, takes over). */
  signOut: () => void;
}

function browserStorage(): Storage | null {
  try {
    return window.localStorage;
  } catch {
    return null;
  }
}

function fromStorage(): { token: string | null; source: TokenSource | null } {
  const token = loadToken(browserStorage());
  return { token, source: token === null ? null : "stored" };
}

/**
 * The bearer token: the one in localStorage, else the server's local-mode token.
 * `generation` (from useHealth) is 0 until the API has answered, and changes when it
 * comes back, so the local token is asked for only when it can be had.
 * (The shell reads this through useSessionState, which also checks the token with /me.)
 */
export function useToken(generation: number): TokenState {
  const [state, setState] = useState(fromStorage);

  // Asked again each time the API comes back: `e3 up` makes a new local token when restarted.
  useEffect(() => {
    if (generation === 0 || state.source === "stored") return;
    const controller = new AbortController();
    getLocalToken(controller.signal)
      .then((token) => {
        if (token === null) return;
        setState((s) => (s.source === "stored" || s.token === token ? s : { token, source: "local" }));
      })
      .catch(() => {
        // Not in local mode or not reachable: the sign-in box stays empty.
      });
    return () => controller.abort();
  }, [generation, state.source]);

  const signIn = useCallback((input: string) => {
    const token = normalizeToken(input);
    if (token === null) return false;
    saveToken(browserStorage(), token);
    setState({ token, source: "stored" });
    return true;
  }, []);

  const signOut = useCallback(() => {
    saveToken(browserStorage(), null);
    setState({ token: null, source: null });
  }, []);

  return { ...state, signIn, signOut };
}
