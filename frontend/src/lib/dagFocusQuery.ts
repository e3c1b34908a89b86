// A DAG node named in the URL's query after the hash route ("#/clusters/rack?deployment=<id>&dag=kv"): the
// dashboard's application graph links to the placement view with it, which shows that DAG node's instances. Pure.

import { hashParams, withHashParams } from "./hashQuery";

export interface DagFocus {
  deployment: string;
  dagNode: string;
}

/** The DAG node a hash names, if it names one (both parameters). */
export function parseDagFocus(hash: string): DagFocus | null {
  const { params } = hashParams(hash);
  const deployment = params.get("deployment");
  const dagNode = params.get("dag");
  return deployment && dagNode ? { deployment, dagNode } : null;
}

/** `hash` naming `focus` (null: none), other parameters kept. */
export function withDagFocus(hash: string, focus: DagFocus | null): string {
  return withHashParams(hash, { deployment: focus?.deployment ?? null, dag: focus?.dagNode ?? null });
}
