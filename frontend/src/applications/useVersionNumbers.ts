import { useEffect, useState } from "react";
import { listApplicationVersions } from "../api/client";
import { describeError } from "../lib/errors";
import { LISTED_VERSIONS } from "./versionWords";

export interface VersionNumbers {
  /** Newest first; the first few only when there are many. */
  numbers: number[];
  total: number;
  loading: boolean;
  error: string | null;
}

/** The version numbers of application `name`, for a confirmation that names them. */
export function useVersionNumbers(name: string): VersionNumbers {
  const [state, setState] = useState<VersionNumbers>({ numbers: [], total: 0, loading: true, error: null });
  useEffect(() => {
    const controller = new AbortController();
    listApplicationVersions(name, { limit: LISTED_VERSIONS, offset: 0 }, controller.signal).then(
      (page) => setState({ numbers: page.items.map((v) => v.version), total: page.total, loading: false, error: null }),
      (error: unknown) => {
        if (!controller.signal.aborted) setState((s) => ({ ...s, loading: false, error: describeError(error) }));
      },
    );
    return () => controller.abort();
  }, [name]);
  return state;
}
