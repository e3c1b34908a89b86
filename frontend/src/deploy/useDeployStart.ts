import { useCallback, useState } from "react";
import { api, unwrap } from "../api/http";

export interface DeployAccepted {
  jobId: string;
  deploymentId: string;
}

export interface DeployStartState {
  submitting: boolean;
  /** The API's refusal (ApiError) or the network error of the last attempt. */
  error: unknown;
  start: (application: string, cluster: string, algorithm: string) => Promise<DeployAccepted | null>;
  clearError: () => void;
}

/** POST /deployments → 202 {job_id, deployment_id}. */
export function useDeployStart(): DeployStartState {
  const [submitting, setSubmitting] = useState(false);
  const [error, setError] = useState<unknown>(null);

  const start = useCallback(async (application: string, cluster: string, algorithm: string) => {
    setSubmitting(true);
    setError(null);
    try {
      const body = unwrap(await api.POST("/api/v1/deployments", {
        body: { application, cluster, algorithm, anti_affinity: false },
      }));
      return { jobId: body.job_id, deploymentId: body.deployment_id };
    } catch (e) {
      setError(e);
      return null;
    } finally {
      setSubmitting(false);
    }
  }, []);

  const clearError = useCallback(() => setError(null), []);
  return { submitting, error, start, clearError };
}
