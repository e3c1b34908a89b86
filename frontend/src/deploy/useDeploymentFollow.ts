import { useCallback, useEffect, useState } from "react";
import type { DeploymentRow } from "../api/client";
import { api, unwrap } from "../api/http";
import { isSettling } from "../lib/deploymentStatus";
import { describeError } from "../lib/errors";
import { isAbortError, isConnectionError, pollDelayMs } from "./deployJob";

export interface DeploymentFollowState {
  /** The deployment as last read (GET /deployments/{id}): its status, reason, refusals, prediction. */
  deployment: DeploymentRow | null;
  loading: boolean;
  /** The API stopped answering; polling goes on and this clears when it answers again. */
  connectionLost: boolean;
  /** A refusal that ends polling (e.g. 404: the deployment was deleted). */
  error: string | null;
  /** Reads it again now (and follows it again if it is still changing). */
  refresh: () => void;
}

/** While placing or deploying, the deployment is read again this often: the agents answer within a second. */
export const FOLLOW_MS = 750;

/** Follows a deployment once `ready` (its placement job ended): reads it until its status settles (not placing
 * or deploying: running, degraded, failed, or placed where no agent runs), so the page ends on what the agents
 * answered, not on the placement job's success. */
export function useDeploymentFollow(deploymentId: string | null, ready: boolean): DeploymentFollowState {
  const [state, setState] = useState<Omit<DeploymentFollowState, "refresh">>({
    deployment: null,
    loading: false,
    connectionLost: false,
    error: null,
  });
  const [generation, setGeneration] = useState(0);

  useEffect(() => {
    if (deploymentId === null || !ready) {
      setState({ deployment: null, loading: false, connectionLost: false, error: null });
      return;
    }
    const controller = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    let failures = 0;
    setState((s) => {
      const same = s.deployment?.id === deploymentId; // a refresh keeps what is shown meanwhile
      return { deployment: same ? s.deployment : null, loading: !same, connectionLost: false, error: null };
    });

    const poll = async () => {
      try {
        const d = unwrap(
          await api.GET("/api/v1/deployments/{deployment_id}", {
            params: { path: { deployment_id: deploymentId } },
            signal: controller.signal,
          }),
        );
        if (controller.signal.aborted) return;
        failures = 0;
        setState({ deployment: d, loading: false, connectionLost: false, error: null });
        if (!isSettling(d.status)) return;
      } catch (error) {
        if (controller.signal.aborted || isAbortError(error)) return;
        if (!isConnectionError(error)) {
          setState((s) => ({ ...s, loading: false, connectionLost: false, error: describeError(error) }));
          return;
        }
        failures += 1;
        setState((s) => ({ ...s, connectionLost: true }));
      }
      timer = setTimeout(() => void poll(), failures === 0 ? FOLLOW_MS : pollDelayMs(failures));
    };
    void poll();

    return () => {
      controller.abort();
      if (timer !== undefined) clearTimeout(timer);
    };
  }, [deploymentId, ready, generation]);

  const refresh = useCallback(() => setGeneration((g) => g + 1), []);
  return { ...state, refresh };
}
