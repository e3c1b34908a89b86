import { api, unwrap } from "../api/http";
import { ApiError } from "../lib/errors";
import type { PlanCreate, PlanPublic } from "./planRequest";

/** POST /plans. A refusal's field errors are reworded to start with the field they name
 * ("custom_server_types[0].peak_watts: …"), so the form shows which one even for a row of many. */
export async function createPlan(body: PlanCreate): Promise<PlanPublic> {
  try {
    return unwrap(await api.POST("/api/v1/plans", { body }));
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    throw new ApiError(error.status, {
      code: error.code,
      message: error.message,
      errors: error.errors.map((e) => (e.field === "" ? e : { ...e, message: `${e.field.replace(/^body\./, "")}: ${e.message}` })),
    });
  }
}
