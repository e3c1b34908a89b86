// The zoom that fits a drawing into a canvas: pure arithmetic in CSS pixels (the canvas's backing store is
// CSS size × devicePixelRatio, applied only when drawing), so the fitted drawing fills the canvas at any DPR.

export interface FitTransform {
  /** Zoom: CSS pixels per world unit. */
  k: number;
  /** Where the drawing's origin lands, CSS pixels. */
  x: number;
  y: number;
}

/** The largest zoom (up to `maxK`) at which a `w` × `h` drawing fits `cssW` × `cssH` less `margin` each side,
 * centred. Small drawings are zoomed in until they fill the canvas's width or height. */
export function fitTransform(w: number, h: number, cssW: number, cssH: number, margin = 16, maxK = 40): FitTransform {
  if (!(w > 0 && h > 0 && cssW > 0 && cssH > 0)) return { k: 1, x: 0, y: 0 };
  const room = (size: number) => Math.max(1, size - margin * 2);
  const k = Math.min(room(cssW) / w, room(cssH) / h, maxK);
  return { k, x: (cssW - w * k) / 2, y: (cssH - h * k) / 2 };
}

/** "r0003-s17/nic0" → "s17/nic0": enough inside its rack; other names are kept. */
export function shortNodeName(name: string): string {
  const m = /(?:^|-)(s\d+\/.+)$/.exec(name);
  return m ? m[1]! : name;
}
