import { useEffect } from "react";

/** Calls `reload` every `everyMs` while `active` (e.g. a list while something on it is still changing). */
export function useReloadWhile(active: boolean, reload: () => void, everyMs: number): void {
  useEffect(() => {
    if (!active) return;
    const timer = setInterval(reload, everyMs);
    return () => clearInterval(timer);
  }, [active, reload, everyMs]);
}
