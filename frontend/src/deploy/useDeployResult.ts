import { useEffect, useState } from "react";
import { api, unwrap } from "../api/http";
import { type PredictedFigures, parsePrediction } from "./deployPreview";
import { describeError } from "../lib/errors";

export interface DeployResultState {
  state: string | null;
  instances: number | null;
  prediction: PredictedFigures | null;
  loading: boolean;
  error: string | null;
}

const empty: DeployResultState = { state: null, instances: null, prediction: null, loading: false, error: null };

/** GET /deployments/{id} once `ready` (its job finished): its state and the cost model's prediction. */
export function useDeployResult(deploymentId: string | null, ready: boolean): DeployResultState {
  const [result, setResult] = useState<DeployResultState>(empty);

  useEffect(() => {
    if (deploymentId === null || !ready) {
      setResult(empty);
      return;
    }
    const controller = new AbortController();
    setResult({ ...empty, loading: true });
    api
      .GET("/api/v1/deployments/{deployment_id}", {
        params: { path: { deployment_id: deploymentId } },
        signal: controller.signal,
      })
      .then((r) => unwrap(r))
      .then(
        (d) => {
          if (controller.signal.aborted) return;
          setResult({
            state: d.state,
            instances: d.instances,
            prediction: parsePrediction(d.prediction),
            loading: false,
            error: null,
          });
        },
        (error: unknown) => {
          if (!controller.signal.aborted) setResult({ ...empty, error: describeError(error) });
        },
      );
    return () => controller.abort();
  }, [deploymentId, ready]);

  return result;
}
