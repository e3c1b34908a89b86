import { useEffect, useState } from "react";
import { describeError } from "../lib/errors";
import { type ServerTypeRow, listServerTypes } from "./clusterApi";

export interface ServerTypesState {
  types: ServerTypeRow[];
  error: string | null;
}

/** The catalogue's server types, loaded once for the "New cluster" form. */
export function useServerTypes(): ServerTypesState {
  const [state, setState] = useState<ServerTypesState>({ types: [], error: null });
  useEffect(() => {
    const controller = new AbortController();
    listServerTypes(controller.signal).then(
      (types) => setState({ types, error: null }),
      (error: unknown) => {
        if (!controller.signal.aborted) setState({ types: [], error: describeError(error) });
      },
    );
    return () => controller.abort();
  }, []);
  return state;
}
