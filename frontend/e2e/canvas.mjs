// The cluster canvas as a person meets it: instance marks found by the cursor the canvas shows over them, and
// the tooltip shown at a point.

/** Points on the instance marks under which the canvas shows `cursor` ("move": ones you may drag, "pointer":
 * ones you may not), scanning every 3 px; one point per mark (points within 4 px are the same mark). With
 * `first`, only the first one found (or none). */
export async function canvasMarks(page, cursor = "move", { first = false } = {}) {
  return page.evaluate(
    ([wanted, onlyFirst]) => {
      const canvas = document.querySelector('[data-testid="cluster-canvas"]');
      const r = canvas.getBoundingClientRect();
      const found = [];
      for (let y = r.top + 2; y < r.bottom; y += 3) {
        for (let x = r.left + 2; x < r.right; x += 3) {
          canvas.dispatchEvent(new MouseEvent("mousemove", { clientX: x, clientY: y, bubbles: true }));
          if (canvas.style.cursor !== wanted || found.some((p) => Math.abs(p.x - x) <= 4 && Math.abs(p.y - y) <= 4)) {
            continue;
          }
          found.push({ x, y });
          if (onlyFirst) return found;
        }
      }
      return found;
    },
    [cursor, first],
  );
}

/** The first mark under which the canvas shows `cursor`, or null. */
export async function findMark(page, cursor) {
  return (await canvasMarks(page, cursor, { first: true }))[0] ?? null;
}

/** The tooltip's text with the pointer at `at` ("" when none shows within 2 s). */
export async function tooltipAt(page, at) {
  const tip = page.locator(".cluster-tooltip");
  await page.mouse.move(1, 1);
  await tip.waitFor({ state: "detached" });
  await page.mouse.move(at.x, at.y);
  try {
    await tip.waitFor({ timeout: 2_000 });
  } catch {
    return "";
  }
  return tip.innerText();
}
