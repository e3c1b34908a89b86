import { useCallback, useEffect, useRef, useState } from "react";
import { api, unwrap } from "../api/http";
import { isAbortError } from "./deployJob";
import { type PreviewRequestBody, type PreviewTable, parsePreview } from "./deployPreview";

export interface PreviewState {
  status: "idle" | "running" | "done" | "failed" | "cancelled";
  table: PreviewTable | null;
  /** What the API (or the network) said when the preview failed. */
  error: unknown;
  /** When the running preview was sent (ms since epoch), for the elapsed time. */
  startedAt: number | null;
  /** The ILP cap of the running preview, in seconds. */
  ilpCapS: number | null;
  /** The offered load (req/s) the shown table was computed at, "" for the knee. */
  offeredRps: string;
  run: (body: PreviewRequestBody) => void;
  cancel: () => void;
}

/** The what-if preview: POST /placements/preview, cancellable with an AbortController. */
export function usePreview(): PreviewState {
  const controllerRef = useRef<AbortController | null>(null);
  const [state, setState] = useState<Omit<PreviewState, "run" | "cancel">>({
    status: "idle",
    table: null,
    error: null,
    startedAt: null,
    ilpCapS: null,
    offeredRps: "",
  });

  const run = useCallback((body: PreviewRequestBody) => {
    controllerRef.current?.abort();
    const controller = new AbortController();
    controllerRef.current = controller;
    setState((s) => ({ ...s, status: "running", error: null, startedAt: Date.now(), ilpCapS: body.ilp_time_limit_s }));
    api
      .POST("/api/v1/placements/preview", { body, signal: controller.signal })
      .then((result) => parsePreview(unwrap(result)))
      .then(
        (table) => {
          if (controllerRef.current !== controller) return;
          controllerRef.current = null;
          const offeredRps = body.offered_rps === undefined ? "" : String(body.offered_rps);
          setState({ status: "done", table, error: null, startedAt: null, ilpCapS: null, offeredRps });
        },
        (error: unknown) => {
          if (controllerRef.current !== controller) return;
          controllerRef.current = null;
          setState((s) => ({
            ...s,
            status: isAbortError(error) ? "cancelled" : "failed",
            error: isAbortError(error) ? null : error,
            startedAt: null,
            ilpCapS: null,
          }));
        },
      );
  }, []);

  const cancel = useCallback(() => {
    const controller = controllerRef.current;
    if (controller === null) return;
    controllerRef.current = null;
    controller.abort();
    setState((s) => ({ ...s, status: "cancelled", error: null, startedAt: null, ilpCapS: null }));
  }, []);

  useEffect(() => () => controllerRef.current?.abort(), []);

  return { ...state, run, cancel };
}
