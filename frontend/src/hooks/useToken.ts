import { useCallback, useEffect, useState } from "react";
import { getLocalToken } from "../api/client";
import { describeError } from "../lib/errors";
import {
  type TokenAction,
  type TokenChoice,
  type TokenSource,
  chooseToken,
  loadChoice,
  normalizeToken,
  persistAction,
  wantsLocalToken,
} from "../lib/token";

export type { TokenSource };

export interface TokenState {
  token: string | null;
  source: TokenSource | null;
  /** The person signed out (in this tab): the local-mode token is not taken until they ask for it. */
  signedOut: boolean;
  /** Why "Sign in as local admin" got no token (not local mode, not this machine, API down); else null. */
  localMessage: string | null;
  /** Stores the pasted token; false if it was empty. */
  signIn: (input: string) => boolean;
  /** Asks the API for its local-mode token (after a sign-out). */
  signInLocal: () => void;
  /** Forgets the token and stays signed out, across reloads of this tab, until the person signs in again. */
  signOut: () => void;
}

function browserStorage(kind: "localStorage" | "sessionStorage"): Storage | null {
  try {
    return window[kind];
  } catch {
    return null;
  }
}

const NO_LOCAL_TOKEN =
  "This API hands out no local-mode token (only `e3 up` in local mode does, and only to a browser on its machine): paste a token.";

/**
 * The bearer token: the one in localStorage, else the server's local-mode token, unless the person signed
 * out (lib/token.ts, TokenChoice). `generation` (from useHealth) is 0 until the API has answered, and changes
 * when it comes back, so the local token is asked for only when it can be had.
 * (The shell reads this through useSessionState, which also checks the token with /me.)
 */
export function useToken(generation: number): TokenState {
  const [choice, setChoice] = useState<TokenChoice>(() =>
    loadChoice(browserStorage("localStorage"), browserStorage("sessionStorage")),
  );
  // Clicks on "Sign in as local admin": an answer without a token is then reported.
  const [asked, setAsked] = useState(0);
  const [localMessage, setLocalMessage] = useState<string | null>(null);

  const act = useCallback((action: TokenAction) => {
    persistAction(action, browserStorage("localStorage"), browserStorage("sessionStorage"));
    setChoice((c) => chooseToken(c, action));
  }, []);

  // Asked again each time the API comes back: `e3 up` makes a new local token when restarted.
  const wanted = wantsLocalToken(choice, generation);
  useEffect(() => {
    if (!wanted) return;
    const controller = new AbortController();
    getLocalToken(controller.signal)
      .then((token) => {
        if (token !== null) act({ type: "local-token", token });
        else if (asked > 0) setLocalMessage(NO_LOCAL_TOKEN);
      })
      .catch((error: unknown) => {
        // Not reachable: the sign-in box stays empty (and says why when the person asked).
        if (!controller.signal.aborted && asked > 0) setLocalMessage(describeError(error));
      });
    return () => controller.abort();
  }, [wanted, generation, asked, act]);

  const signIn = useCallback(
    (input: string) => {
      const token = normalizeToken(input);
      if (token === null) return false;
      setLocalMessage(null);
      act({ type: "pasted", token });
      return true;
    },
    [act],
  );

  const signInLocal = useCallback(() => {
    setLocalMessage(null);
    setAsked((n) => n + 1);
    act({ type: "local-asked" });
  }, [act]);

  const signOut = useCallback(() => {
    setLocalMessage(null);
    act({ type: "signed-out" });
  }, [act]);

  return { ...choice, localMessage, signIn, signInLocal, signOut };
}
