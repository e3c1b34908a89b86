// Hand-written shapes of the few API answers this page reads. They go away
// when the client is generated from the OpenAPI spec. The error body, the /readyz body and
// the template summary are typed in lib/ beside their parsers (errors, readiness, templates).

export interface HealthBody {
  status: string; // "ok"
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
