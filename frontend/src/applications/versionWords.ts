// Application versions named in words, for the confirmations that delete them.

import { countOf } from "../lib/format";

/** Version numbers a confirmation lists one by one; beyond that it gives the count and the newest. */
export const LISTED_VERSIONS = 12;

/**
 * "version 1", "3 versions (4, 2, 1)", "40 versions (the newest: 40, 39, …)" from the numbers known
 * (newest first, as the API lists them) and how many there are in all.
 */
export function describeVersions(numbers: readonly number[], total: number): string {
  if (total === 1 && numbers.length === 1) return `version ${numbers[0]}`;
  if (numbers.length === total && total <= LISTED_VERSIONS) return `${countOf(total, "version")} (${numbers.join(", ")})`;
  return `${countOf(total, "version")} (the newest: ${numbers.slice(0, LISTED_VERSIONS).join(", ")}, …)`;
}
