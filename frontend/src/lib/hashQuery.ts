// The query part after a hash route ("#/clusters/rack?at=…&dag=kv"), where pages keep state a link should carry.
// Pure.

/** The hash's route part and its query's parameters. */
export function hashParams(hash: string): { path: string; params: URLSearchParams } {
  const q = hash.indexOf("?");
  return { path: q < 0 ? hash : hash.slice(0, q), params: new URLSearchParams(q < 0 ? "" : hash.slice(q + 1)) };
}

/** `hash` with `set`'s parameters changed (null: removed), the others kept; none left: no "?". Colons are kept as
 * they are (times read better). */
export function withHashParams(hash: string, set: Record<string, string | null>): string {
  const { path, params } = hashParams(hash);
  for (const [key, value] of Object.entries(set)) {
    if (value === null) params.delete(key);
    else params.set(key, value);
  }
  const rest = params.toString().replaceAll("%3A", ":");
  return rest ? `${path}?${rest}` : path;
}
