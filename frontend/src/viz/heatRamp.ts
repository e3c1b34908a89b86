// A sequential colour ramp for "more is hotter" figures (the dashboard's service graph colours its DAG nodes by
// J/request, latency, CPU or queue with it), and the text colour that reads on each of its fills.

import { interpolateYlOrRd, rgb } from "d3";

/** The ramp's colour at `t` in 0..1 (clamped): yellow the least, red the most. */
export const heatColour = (t: number): string => interpolateYlOrRd(Math.min(1, Math.max(0, t)));

/** The ramp as a CSS gradient, left (least) to right (most), for a legend. */
export const HEAT_GRADIENT = `linear-gradient(to right, ${[0, 0.25, 0.5, 0.75, 1].map(heatColour).join(", ")})`;

const DARK_INK = "#1d2430"; // the page's --fg
const LIGHT_INK = "#ffffff";

// WCAG relative luminance of an sRGB channel 0..255.
const linear = (channel: number): number => {
  const c = channel / 255;
  return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
};

const luminance = (colour: string): number => {
  const { r, g, b } = rgb(colour);
  return 0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b);
};

/** The text colour with the higher contrast on `fill`: dark on the yellows and oranges, white on the reds. */
export function readableInk(fill: string): string {
  const l = luminance(fill);
  const onDark = (l + 0.05) / (luminance(DARK_INK) + 0.05);
  const onLight = (luminance(LIGHT_INK) + 0.05) / (l + 0.05);
  return onDark >= onLight ? DARK_INK : LIGHT_INK;
}
