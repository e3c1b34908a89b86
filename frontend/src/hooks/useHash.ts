import { useCallback, useEffect, useState } from "react";

export interface HashState {
  /** location.hash now ("#/clusters/rack?at=…"). */
  hash: string;
  /** Goes to `hash`: a new history entry (Back returns), or in place (`replace`, e.g. while a slider is dragged). */
  setHash: (hash: string, options?: { replace?: boolean }) => void;
}

/** The page's hash, following its changes (links, Back), for the state a page keeps in its query part. */
export function useHash(): HashState {
  const [hash, setState] = useState(() => window.location.hash);
  useEffect(() => {
    const onChange = () => setState(window.location.hash);
    window.addEventListener("hashchange", onChange);
    return () => window.removeEventListener("hashchange", onChange);
  }, []);
  const setHash = useCallback((next: string, options?: { replace?: boolean }) => {
    if (options?.replace) {
      // replaceState fires no hashchange: the state follows here.
      window.history.replaceState(window.history.state, "", next);
      setState(window.location.hash);
    } else {
      window.location.hash = next.replace(/^#/, "");
    }
  }, []);
  return { hash, setHash };
}
