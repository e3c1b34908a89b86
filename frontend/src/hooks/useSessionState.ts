import { useCallback, useEffect, useMemo, useState } from "react";
import { getMe, onUnauthorized } from "../api/client";
import { setApiToken } from "../api/http";
import { ApiError, describeError } from "../lib/errors";
import { type Me, type Scope, hasScope } from "../lib/scopes";
import type { Session, SessionStatus } from "./useSession";
import { useToken } from "./useToken";

interface Check {
  status: SessionStatus;
  me: Me | null;
  message: string | null;
}

/**
 * The shell's session: the token (stored or local-mode, from useToken), checked with
 * GET /api/v1/me, handed to the generated client with setApiToken, and marked refused
 * whenever any call answers 401. `generation` comes from useHealth.
 */
export function useSessionState(generation: number): Session {
  const auth = useToken(generation);
  const { token } = auth;
  const [attempt, setAttempt] = useState(0);
  const [check, setCheck] = useState<Check>({ status: "anonymous", me: null, message: null });

  useEffect(() => {
    setApiToken(token);
    if (token === null) {
      setCheck({ status: "anonymous", me: null, message: null });
      return;
    }
    setCheck((c) => ({ ...c, status: "checking", message: null }));
    if (generation === 0) return; // asked once the API answers
    const controller = new AbortController();
    getMe(controller.signal).then(
      (me) => {
        if (!controller.signal.aborted) setCheck({ status: "signed-in", me, message: null });
      },
      (error: unknown) => {
        if (controller.signal.aborted) return;
        const refused = error instanceof ApiError && error.status === 401;
        setCheck((c) => ({
          status: refused ? "refused" : "error",
          me: refused ? null : c.me,
          message: describeError(error),
        }));
      },
    );
    return () => controller.abort();
  }, [token, generation, attempt]);

  useEffect(
    () =>
      onUnauthorized((message) => {
        setCheck((c) => ({ ...c, status: "refused", message }));
      }),
    [],
  );

  const { signIn: storeToken, signInLocal, signOut, source, signedOut, localMessage } = auth;
  const signIn = useCallback(
    (input: string) => {
      const ok = storeToken(input);
      if (ok) setAttempt((n) => n + 1);
      return ok;
    },
    [storeToken],
  );
  const can = useCallback((scope: Scope) => check.me !== null && hasScope(check.me.scopes, scope), [check.me]);

  return useMemo(
    () => ({
      token,
      source,
      status: check.status,
      me: check.me,
      message: check.message,
      signedOut,
      localMessage,
      can,
      signIn,
      signInLocal,
      signOut,
    }),
    [token, source, check, signedOut, localMessage, can, signIn, signInLocal, signOut],
  );
}
