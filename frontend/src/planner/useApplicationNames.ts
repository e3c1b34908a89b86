import { useEffect, useState } from "react";

import { listApplications } from "../api/client";
import { describeError } from "../lib/errors";

export interface ApplicationNames {
  names: string[];
  error: string | null;
  loading: boolean;
}

/** The stored applications' names (the first 200), for the planner's choice. */
export function useApplicationNames(): ApplicationNames {
  const [state, setState] = useState<ApplicationNames>({ names: [], error: null, loading: true });
  useEffect(() => {
    const controller = new AbortController();
    listApplications({ limit: 200, offset: 0 }, controller.signal).then(
      (page) => setState({ names: page.items.map((a) => a.name), error: null, loading: false }),
      (error: unknown) => {
        if (!controller.signal.aborted) setState({ names: [], error: describeError(error), loading: false });
      },
    );
    return () => controller.abort();
  }, []);
  return state;
}
