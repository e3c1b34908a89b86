// A deployment's life cycle calls: undeploy it, roll it to another application version.

import { api, unwrap } from "../api/http";

/** Removes a deployment: its instances leave their agents and free their reservations. Refused (409) while it
 * is being placed or one of its instances is migrating. */
export async function undeploy(deploymentId: string): Promise<void> {
  unwrap(await api.DELETE("/api/v1/deployments/{deployment_id}", { params: { path: { deployment_id: deploymentId } } }));
}

/** Starts rolling a deployment to `version` (blue/green); the job's id and the new deployment's id. */
export async function rollDeployment(deploymentId: string, version: number): Promise<{ jobId: string; deploymentId: string }> {
  const accepted = unwrap(
    await api.POST("/api/v1/deployments/{deployment_id}/rollout", {
      params: { path: { deployment_id: deploymentId } },
      body: { version },
    }),
  );
  return { jobId: accepted.job_id, deploymentId: accepted.deployment_id };
}
