// The application life cycle's calls: delete an application with its versions, or one older version.

import { api, unwrap } from "../api/http";

/** Deletes the application and every version of it; refused (409 application_in_use) while deployments use it. */
export async function deleteApplication(name: string): Promise<void> {
  unwrap(await api.DELETE("/api/v1/applications/{name}", { params: { path: { name } } }));
}

/** Deletes one version; refused for the latest (409 latest_version) and while deployed (409 version_in_use). */
export async function deleteVersion(name: string, version: number): Promise<void> {
  unwrap(await api.DELETE("/api/v1/applications/{name}/versions/{version}", { params: { path: { name, version } } }));
}
