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

/** A token shown on screen without revealing it: first and last four characters. */
export function maskToken(token: string): string {
  if (token.length <= 10) return "•".repeat(token.length);
  return `${token.slice(0, 4)}…${token.slice(-4)}`;
}
