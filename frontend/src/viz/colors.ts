// Application colours for the cluster view: a d3 categorical scale over the sorted
// application names, so one application keeps its colour across redraws and filters.
// Up to ten applications get Tableau10; more get evenly spread, interleaved hues.

import { interpolateSinebow, scaleOrdinal, schemeTableau10 } from "d3";

export interface AppColors {
  /** The colour of `application` (a neutral grey for one not in the domain). */
  color(application: string): string;
  /** The applications, sorted, with their colours (for the legend). */
  entries: { application: string; color: string }[];
}

export const UNKNOWN_APP_COLOR = "#9aa3ad";

/** n distinct colours; consecutive ones far apart on the hue circle. */
export function categoricalColors(n: number): string[] {
  if (n <= schemeTableau10.length) return schemeTableau10.slice(0, n);
  // Golden-ratio stepping spreads neighbours apart; a lightness wobble separates close hues.
  const colors: string[] = [];
  const seen = new Set<string>();
  for (let i = 0; colors.length < n; i++) {
    const t = (i * 0.618033988749895) % 1;
    const c = interpolateSinebow(t);
    if (!seen.has(c)) {
      seen.add(c);
      colors.push(c);
    }
    if (i > n * 4) {
      // Extremely large n: fall back to unique (possibly close) colours.
      colors.push(`hsl(${(i * 137.508) % 360}, 65%, ${40 + (i % 3) * 10}%)`);
    }
  }
  return colors;
}

/** The colour scale over the distinct `applications`. */
export function appColors(applications: Iterable<string>): AppColors {
  const domain = [...new Set(applications)].sort();
  const scale = scaleOrdinal<string, string>().domain(domain).range(categoricalColors(domain.length)).unknown(UNKNOWN_APP_COLOR);
  const known = new Set(domain);
  return {
    color: (application) => (known.has(application) ? scale(application) : UNKNOWN_APP_COLOR),
    entries: domain.map((application) => ({ application, color: scale(application) })),
  };
}
