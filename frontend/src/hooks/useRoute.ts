import { useCallback, useEffect, useState } from "react";
import { type Route, parseRoute, routeHref } from "../lib/route";

export interface RouteState {
  route: Route;
  /** Goes to a route (or a "#/..." href); pages may equally set `window.location.hash`. */
  navigate: (to: Route | string) => void;
}

const current = () => parseRoute(window.location.hash);

/** The hash route, following `hashchange` (links, back/forward, pages setting the hash). */
export function useRoute(): RouteState {
  const [route, setRoute] = useState<Route>(current);

  useEffect(() => {
    const onChange = () => setRoute(current());
    window.addEventListener("hashchange", onChange);
    onChange(); // the hash may have changed before the listener was added
    return () => window.removeEventListener("hashchange", onChange);
  }, []);

  const navigate = useCallback((to: Route | string) => {
    const href = typeof to === "string" ? to : routeHref(to);
    window.location.hash = href.replace(/^#/, "");
  }, []);

  return { route, navigate };
}
