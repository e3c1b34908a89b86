// Bearer-token handling, independent of React and of where the token is kept.

export const TOKEN_KEY = "e3.token";

type TokenStorage = Pick<Storage, "getItem" | "setItem" | "removeItem">;

/** What a person pasted, as a token: trimmed, an optional "Bearer " prefix dropped; null if empty. */
export function normalizeToken(input: string): string | null {
  const token = input.trim().replace(/^bearer(?:\s+|$)/i, "").trim();
  return token === "" ? null : token;
}

export function bearerHeader(token: string): string {
  return `Bearer ${token}`;
}

/** The stored token, or null. Storage can be missing or throw (private mode, quota). */
export function loadToken(storage: TokenStorage | null | undefined): string | null {
  try {
    const raw = storage?.getItem(TOKEN_KEY);
    return raw == null ? null : normalizeToken(raw);
  } catch {
    return null;
  }
}

/** Stores `token`, or forgets the stored one when `token` is null. */
export function saveToken(storage: TokenStorage | null | undefined, token: string | null): void {
  try {
    if (token === null) storage?.removeItem(TOKEN_KEY);
    else storage?.setItem(TOKEN_KEY, token);
  } catch {
    // Not persisted; the token still works for this page load.
  }
}

/** The sign-out's mark in sessionStorage: this tab stays signed out across reloads. */
export const SIGNED_OUT_KEY = "e3.signedOut";

export type TokenSource = "stored" | "local";

/**
 * Which token the UI uses: a pasted one (kept in localStorage), the local-mode token `e3 up` hands to a
 * browser on its machine, or none. `signedOut`: the person signed out, so the local-mode token is not
 * taken again (it would sign them straight back in) until they ask for it or paste a token.
 */
export interface TokenChoice {
  token: string | null;
  source: TokenSource | null;
  signedOut: boolean;
}

export type TokenAction =
  | { type: "pasted"; token: string }
  /** GET /local-token answered with this token. */
  | { type: "local-token"; token: string }
  | { type: "signed-out" }
  /** "Sign in as local admin": the local-mode token may be taken again. */
  | { type: "local-asked" };

export function chooseToken(choice: TokenChoice, action: TokenAction): TokenChoice {
  switch (action.type) {
    case "pasted":
      return { token: action.token, source: "stored", signedOut: false };
    case "local-token":
      // A pasted token wins; a sign-out wins over an answer asked for before it.
      if (choice.source === "stored" || choice.signedOut || choice.token === action.token) return choice;
      return { token: action.token, source: "local", signedOut: false };
    case "signed-out":
      return { token: null, source: null, signedOut: true };
    case "local-asked":
      return choice.signedOut ? { ...choice, signedOut: false } : choice;
  }
}

/** Whether to ask GET /local-token now: the API has answered (`generation` > 0, from useHealth), no token
 * was pasted, and the person has not signed out. */
export function wantsLocalToken(choice: TokenChoice, generation: number): boolean {
  return generation !== 0 && choice.source !== "stored" && !choice.signedOut;
}

/** The choice a page load starts with: the pasted token, else whether this tab signed out. */
export function loadChoice(stored: TokenStorage | null | undefined, session: TokenStorage | null | undefined): TokenChoice {
  const token = loadToken(stored);
  if (token !== null) return { token, source: "stored", signedOut: false };
  let signedOut = false;
  try {
    signedOut = session?.getItem(SIGNED_OUT_KEY) === "1";
  } catch {
    // Unreadable: not signed out.
  }
  return { token: null, source: null, signedOut };
}

/** Keeps what a reload must find after a person's action: the pasted token (or none after a sign-out) in
 * localStorage, the sign-out in sessionStorage (this tab). A local-mode token is never kept: it is asked for. */
export function persistAction(action: TokenAction, stored: TokenStorage | null | undefined, session: TokenStorage | null | undefined): void {
  if (action.type === "local-token") return;
  if (action.type === "pasted") saveToken(stored, action.token);
  if (action.type === "signed-out") saveToken(stored, null);
  try {
    if (action.type === "signed-out") session?.setItem(SIGNED_OUT_KEY, "1");
    else session?.removeItem(SIGNED_OUT_KEY);
  } catch {
    // Not kept: a reload may sign in with the local-mode token again.
  }
}

/** A token shown on screen without revealing it: first and last four characters. */
export function maskToken(token: string): string {
  if (token.length <= 10) return "•".repeat(token.length);
  return `${token.slice(0, 4)}…${token.slice(-4)}`;
}
