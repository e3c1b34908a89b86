// Where a node added without a pointer (from the keyboard) goes: the free spot nearest to where the
// person is looking. Pure: no React, no DOM.

import type { XY } from "../viz/dagLayout";

/** About the room a node takes on the canvas (its box is 150-240 px wide), with a margin. */
export const NODE_ROOM = { width: 200, height: 100 };

/** The top-left nearest to `around`, on a grid of NODE_ROOM steps, whose box overlaps no node at `taken`. */
export function freeSpot(taken: readonly XY[], around: XY, room = NODE_ROOM): XY {
  const free = (p: XY) => taken.every((t) => Math.abs(t.x - p.x) >= room.width || Math.abs(t.y - p.y) >= room.height);
  for (let ring = 0; ring <= 50; ring++) {
    const cells: [number, number][] = [];
    for (let j = -ring; j <= ring; j++) {
      for (let i = -ring; i <= ring; i++) if (Math.max(Math.abs(i), Math.abs(j)) === ring) cells.push([i, j]);
    }
    // nearest first; on a tie, below before above and right before left
    cells.sort((a, b) => Math.hypot(a[0], a[1]) - Math.hypot(b[0], b[1]) || b[1] - a[1] || b[0] - a[0]);
    for (const [i, j] of cells) {
      const p = { x: around.x + i * room.width, y: around.y + j * room.height };
      if (free(p)) return p;
    }
  }
  return around;
}
