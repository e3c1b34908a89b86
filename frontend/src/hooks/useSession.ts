import { createContext, useContext } from "react";
import type { Me, Scope } from "../lib/scopes";
import type { TokenSource } from "../lib/token";

/**
 * - anonymous: no token (none stored, no local-mode token, or signed out)
 * - checking: a token is being checked against /api/v1/me
 * - signed-in: /me accepted it; `me` has its name and scopes
 * - refused: the API answered 401 (to /me or to any later call); `message` says why
 * - error: /me could not be asked (API down, 5xx); `message` says why
 */
export type SessionStatus = "anonymous" | "checking" | "signed-in" | "refused" | "error";

export interface Session {
  token: string | null;
  source: TokenSource | null;
  status: SessionStatus;
  /** The last token the API accepted; kept while a new one is checked or after a 401, so open pages stay. */
  me: Me | null;
  /** Why the token was refused, or why it could not be checked. */
  message: string | null;
  /** Whether the accepted token grants `scope` (admin grants everything; write and deploy include read). */
  can: (scope: Scope) => boolean;
  /** The person signed out (in this tab): no token is taken until they sign in again. */
  signedOut: boolean;
  /** Why "Sign in as local admin" got no token; else null. */
  localMessage: string | null;
  /** Stores a pasted token and checks it; false if it was empty. */
  signIn: (input: string) => boolean;
  /** Takes the local-mode token `e3 up` hands to a browser on its machine (after a sign-out). */
  signInLocal: () => void;
  /** Forgets the token and stays signed out (across reloads of this tab) until the person signs in again. */
  signOut: () => void;
}

export const SessionContext = createContext<Session | null>(null);

/** The session the shell provides (token, name, scopes, `can`). */
export function useSession(): Session {
  const session = useContext(SessionContext);
  if (session === null) throw new Error("useSession needs the SessionContext provider (App)");
  return session;
}
