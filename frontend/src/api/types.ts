// Hand-written shapes of the few API answers this page reads. They go away
// when the client is generated from the OpenAPI spec.

export interface HealthBody {
  status: string; // "ok"
}

export interface ReadinessCheck {
  ok: boolean;
  detail: string;
}

export interface ReadinessBody {
  status: "ready" | "not_ready";
  checks: Record<string, ReadinessCheck>;
}

export interface LocalTokenBody {
  token: string;
}

export interface ListPage<T> {
  items: T[];
  total: number;
  limit: number;
  offset: number;
}

export interface TemplateSummary {
  name: string;
  description: string;
  instances: number; // microservice instances the application deploys
}

export interface FieldErrorBody {
  field: string;
  message: string;
  code: string;
}

/** The API's error body for every 4xx it raises itself. */
export interface ErrorBody {
  code: string;
  message: string;
  errors: FieldErrorBody[];
}
