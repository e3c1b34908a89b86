// Draws the cluster geometry (clusterLayout.ts) on a <canvas>, with d3-zoom for zoom and pan
// and a grid index for hit-testing. A canvas, not SVG: 5,000 node boxes and 10K instance
// marks as DOM elements would be slow to create and to pan. No React here.

import { type D3ZoomEvent, type ZoomBehavior, type ZoomTransform, select, zoom, zoomIdentity } from "d3";

import { type ClusterGeometry, type Hit, type HitIndex, type Mark, buildHitIndex, hitTest } from "./clusterLayout";

export interface ClusterCanvasModel {
  geometry: ClusterGeometry;
  /** Fill colour per deployment index. */
  deploymentColors: readonly string[];
  /** Rack and server names to print (by rack / server index). */
  serverNames: readonly string[];
  /** The pinned instance and the instances to highlight with it (its DAG peers). */
  selected: number | null;
  highlighted: readonly number[];
  /** When this changes, the view is refitted to the drawing. */
  fitKey: string;
  /** performance.now() when the data arrived; the first draw of it sets data-render-ms. */
  dataArrivedAt: number | null;
}

export interface ClusterCanvasOptions {
  /** The <canvas> element, sized by CSS; its backing store follows its size and the DPR. */
  domNode: HTMLCanvasElement;
  /** The thing under the pointer (null when nothing), with the pointer in canvas CSS pixels. */
  onHover?: (hit: Hit | null, at: { x: number; y: number }) => void;
  /** A click (not a drag) on something, or on nothing (null). */
  onSelect?: (hit: Hit | null) => void;
}

export interface ClusterCanvas {
  update(model: ClusterCanvasModel): void;
  destroy(): void;
}

const COLORS = {
  background: "#f5f7fa",
  rack: "#ffffff",
  rackBorder: "#c3cad4",
  rackHeader: "#e8ecf2",
  rackText: "#1d2430",
  muted: "#5d6878",
  host: "#eef1f5",
  hostBorder: "#7d8896",
  nic: "#fff6e0",
  nicBorder: "#c58b12",
  bar: "#2f9e6b",
  barHigh: "#d1495b",
  barTrack: "#dde2e9",
  select: "#111111",
  peer: "#ff2d7a",
};

export function createClusterCanvas({ domNode, onHover, onSelect }: ClusterCanvasOptions): ClusterCanvas {
  const canvas = domNode;
  const ctx = canvas.getContext("2d", { alpha: false });
  let model: ClusterCanvasModel | null = null;
  let index: HitIndex | null = null;
  let transform: ZoomTransform = zoomIdentity;
  let cssW = 0;
  let cssH = 0;
  let dpr = 1;
  let frame = 0;
  let hovered: Hit | null = null;
  let fittedKey: string | null = null;
  let measuredArrival: number | null = null;
  let userMoved = false;
  // Marks grouped by colour and role, rebuilt on update: few fillStyle changes per draw.
  let groups: { color: string; primary: boolean; marks: Mark[] }[] = [];

  const zoomBehavior: ZoomBehavior<HTMLCanvasElement, unknown> = zoom<HTMLCanvasElement, unknown>()
    .scaleExtent([0.02, 40])
    .on("zoom", (event: D3ZoomEvent<HTMLCanvasElement, unknown>) => {
      transform = event.transform;
      if (event.sourceEvent) userMoved = true;
      schedule();
    });
  const selection = select(canvas);
  selection.call(zoomBehavior).on("dblclick.zoom", null);

  function resize(): boolean {
    const rect = canvas.getBoundingClientRect();
    const w = Math.max(1, Math.round(rect.width));
    const h = Math.max(1, Math.round(rect.height));
    const ratio = window.devicePixelRatio || 1;
    if (w === cssW && h === cssH && ratio === dpr) return false;
    cssW = w;
    cssH = h;
    dpr = ratio;
    canvas.width = Math.round(w * dpr);
    canvas.height = Math.round(h * dpr);
    return true;
  }

  function fit(): void {
    if (!model) return;
    const g = model.geometry;
    const margin = 16;
    const k = g.w > 0 && g.h > 0 ? Math.min((cssW - margin * 2) / g.w, (cssH - margin * 2) / g.h, 3) : 1;
    const tx = (cssW - g.w * k) / 2;
    const ty = Math.max(margin, (cssH - g.h * k) / 2);
    zoomBehavior.scaleExtent([Math.min(k / 2, 0.5), 40]);
    // Sets `transform` through the zoom listener (synchronously), then we draw.
    selection.call(zoomBehavior.transform, zoomIdentity.translate(tx, ty).scale(k));
    userMoved = false;
  }

  function schedule(): void {
    if (frame) return;
    frame = requestAnimationFrame(() => {
      frame = 0;
      draw();
    });
  }

  function draw(): void {
    if (!ctx) return;
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.fillStyle = COLORS.background;
    ctx.fillRect(0, 0, canvas.width, canvas.height);
    if (!model) return;
    const g = model.geometry;
    const k = transform.k;
    ctx.setTransform(dpr * k, 0, 0, dpr * k, dpr * transform.x, dpr * transform.y);
    const px = 1 / k; // one CSS pixel in world units
    // The visible world rectangle, for culling.
    const vx0 = -transform.x / k;
    const vy0 = -transform.y / k;
    const vx1 = vx0 + cssW / k;
    const vy1 = vy0 + cssH / k;
    const visible = (x: number, y: number, w: number, h: number) => x + w >= vx0 && x <= vx1 && y + h >= vy0 && y <= vy1;

    const racks = g.racks.filter((r) => visible(r.x, r.y, r.w, r.h));

    // Racks.
    ctx.fillStyle = COLORS.rack;
    for (const r of racks) ctx.fillRect(r.x, r.y, r.w, r.h);
    ctx.fillStyle = COLORS.rackHeader;
    for (const r of racks) ctx.fillRect(r.header.x, r.header.y, r.header.w, r.header.h);
    ctx.lineWidth = px;
    ctx.strokeStyle = COLORS.rackBorder;
    ctx.beginPath();
    for (const r of racks) ctx.rect(r.x, r.y, r.w, r.h);
    ctx.stroke();

    const textOk = k * 11 >= 7; // world 11 px text is at least 7 screen px
    ctx.textBaseline = "middle";
    if (textOk) {
      ctx.font = "600 11px system-ui, sans-serif";
      ctx.fillStyle = COLORS.rackText;
      for (const r of racks) {
        const s = r.summary;
        const long = `${r.name}  ·  ${s.servers} servers · ${s.instances} inst · ${Math.round(s.utilisation * 100)}% cores`;
        const label = r.collapsed ? `${r.name}  ▸` : ctx.measureText(long).width <= r.w - 12 ? long : r.name;
        ctx.fillText(label, r.x + 6, r.y + r.header.h / 2, r.w - 12);
      }
    }

    // Collapsed racks: a summary block with counts and a utilisation bar.
    for (const r of racks) {
      if (!r.collapsed) continue;
      const s = r.summary;
      const bx = r.x + 6;
      const by = r.y + r.header.h + 4;
      const bw = r.w - 12;
      if (textOk) {
        ctx.font = "11px system-ui, sans-serif";
        ctx.fillStyle = COLORS.muted;
        ctx.fillText(`${s.servers} servers · ${s.hostNodes} host + ${s.smartnicNodes} SmartNIC nodes`, bx, by + 6, bw);
        ctx.fillText(`${s.instances} instances (${s.primaries} primary)`, bx, by + 19, bw);
        ctx.fillText(`cores ${fmt(s.usedCores)} / ${fmt(s.cores)} (${Math.round(s.utilisation * 100)}%)`, bx, by + 32, bw);
      }
      ctx.fillStyle = COLORS.barTrack;
      ctx.fillRect(bx, by + 42, bw, 6);
      ctx.fillStyle = s.utilisation > 0.9 ? COLORS.barHigh : COLORS.bar;
      ctx.fillRect(bx, by + 42, bw * s.utilisation, 6);
    }

    // Node boxes, batched by kind; utilisation bars.
    const boxes = [];
    for (const r of racks) for (let i = r.nodeStart; i < r.nodeEnd; i++) {
      const n = g.nodes[i]!;
      if (visible(n.x, n.y, n.w, n.h)) boxes.push(n);
    }
    for (const host of [true, false]) {
      ctx.fillStyle = host ? COLORS.host : COLORS.nic;
      ctx.beginPath();
      for (const n of boxes) if ((n.kind === "host") === host) ctx.rect(n.x, n.y, n.w, n.h);
      ctx.fill();
      if (k > 0.25) {
        ctx.strokeStyle = host ? COLORS.hostBorder : COLORS.nicBorder;
        ctx.lineWidth = px;
        ctx.stroke();
      }
    }
    ctx.fillStyle = COLORS.barTrack;
    ctx.beginPath();
    for (const n of boxes) ctx.rect(n.bar.x, n.bar.y, n.w - (n.bar.x - n.x) * 2, n.bar.h);
    ctx.fill();
    for (const high of [false, true]) {
      ctx.fillStyle = high ? COLORS.barHigh : COLORS.bar;
      ctx.beginPath();
      for (const n of boxes) if (n.utilisation > 0.9 === high && n.bar.w > 0) ctx.rect(n.bar.x, n.bar.y, n.bar.w, n.bar.h);
      ctx.fill();
    }

    // Server names.
    if (k * 9 >= 6) {
      ctx.font = "9px system-ui, sans-serif";
      ctx.fillStyle = COLORS.muted;
      for (const s of g.servers) {
        if (!visible(s.x, s.y, s.w, s.h)) continue;
        ctx.fillText(shortServer(model.serverNames[s.server] ?? ""), s.x, s.y + s.h / 2, 58);
      }
    }

    // Instance marks: primaries filled, backups outlined.
    const inset = Math.min(0.5, px / 2);
    for (const grp of groups) {
      ctx.beginPath();
      if (grp.primary) {
        ctx.fillStyle = grp.color;
        for (const m of grp.marks) if (m.x + m.w >= vx0 && m.x <= vx1 && m.y + m.h >= vy0 && m.y <= vy1) ctx.rect(m.x, m.y, m.w, m.h);
        ctx.fill();
      } else {
        ctx.strokeStyle = grp.color;
        ctx.lineWidth = Math.min(1, Math.max(px, 0.8));
        for (const m of grp.marks) {
          if (m.x + m.w >= vx0 && m.x <= vx1 && m.y + m.h >= vy0 && m.y <= vy1) ctx.rect(m.x + inset, m.y + inset, m.w - 2 * inset, m.h - 2 * inset);
        }
        ctx.stroke();
      }
    }

    // Selection: the pinned instance, its DAG peers, and lines between them.
    const markOf = (i: number) => {
      const mi = g.markOfInstance[i] ?? -1;
      return mi >= 0 ? g.marks[mi] : undefined;
    };
    if (model.selected !== null) {
      const sel = markOf(model.selected);
      const peers = model.highlighted.map(markOf).filter((m): m is Mark => m !== undefined);
      if (sel) {
        ctx.strokeStyle = COLORS.peer;
        ctx.globalAlpha = 0.55;
        ctx.lineWidth = 1.5 * px;
        ctx.beginPath();
        for (const p of peers) {
          ctx.moveTo(sel.x + sel.w / 2, sel.y + sel.h / 2);
          ctx.lineTo(p.x + p.w / 2, p.y + p.h / 2);
        }
        ctx.stroke();
        ctx.globalAlpha = 1;
      }
      ctx.strokeStyle = COLORS.peer;
      ctx.lineWidth = 2 * px;
      ctx.beginPath();
      const pad = Math.max(1, 2 * px);
      for (const p of peers) ctx.rect(p.x - pad, p.y - pad, p.w + 2 * pad, p.h + 2 * pad);
      ctx.stroke();
      if (sel) {
        ctx.strokeStyle = COLORS.select;
        ctx.lineWidth = 2.5 * px;
        const big = Math.max(1.5, 4 * px);
        ctx.strokeRect(sel.x - big, sel.y - big, sel.w + 2 * big, sel.h + 2 * big);
      }
    }

    // Hover outline.
    if (hovered) {
      ctx.strokeStyle = COLORS.select;
      ctx.lineWidth = 1.5 * px;
      if (hovered.kind === "instance") {
        const m = markOf(hovered.instance);
        if (m) ctx.strokeRect(m.x - px, m.y - px, m.w + 2 * px, m.h + 2 * px);
      } else if (hovered.kind === "node") {
        const n = g.nodes.find((b) => b.node === (hovered as { node: number }).node);
        if (n) ctx.strokeRect(n.x, n.y, n.w, n.h);
      } else {
        const r = g.racks[hovered.rack];
        if (r && (r.collapsed || (r.collapsible && hovered.header))) ctx.strokeRect(r.x, r.y, r.w, hovered.header && !r.collapsed ? r.header.h : r.h);
      }
    }
  }

  function pointer(event: MouseEvent): { x: number; y: number; wx: number; wy: number } {
    const rect = canvas.getBoundingClientRect();
    const x = event.clientX - rect.left;
    const y = event.clientY - rect.top;
    const [wx, wy] = transform.invert([x, y]);
    return { x, y, wx, wy };
  }

  function hitAt(event: MouseEvent): { hit: Hit | null; x: number; y: number } {
    const p = pointer(event);
    if (!model || !index) return { hit: null, x: p.x, y: p.y };
    // A few screen pixels of slop so tiny marks can be hovered when zoomed out.
    return { hit: hitTest(model.geometry, index, p.wx, p.wy, 3 / transform.k), x: p.x, y: p.y };
  }

  const sameHit = (a: Hit | null, b: Hit | null) => JSON.stringify(a) === JSON.stringify(b);

  function onMove(event: MouseEvent): void {
    if (event.buttons !== 0) return; // panning
    const { hit, x, y } = hitAt(event);
    if (!sameHit(hit, hovered)) {
      hovered = hit;
      schedule();
    }
    onHover?.(hit, { x, y });
  }
  function onLeave(): void {
    hovered = null;
    schedule();
    onHover?.(null, { x: 0, y: 0 });
  }
  function onClick(event: MouseEvent): void {
    onSelect?.(hitAt(event).hit);
  }
  canvas.addEventListener("mousemove", onMove);
  canvas.addEventListener("mouseleave", onLeave);
  canvas.addEventListener("click", onClick);

  const observer = typeof ResizeObserver === "undefined" ? null : new ResizeObserver(() => {
    if (resize()) {
      if (model && !userMoved) fit();
      schedule();
    }
  });
  observer?.observe(canvas);
  resize();

  return {
    update(next) {
      const geometryChanged = !model || model.geometry !== next.geometry;
      const colorsChanged = !model || model.deploymentColors !== next.deploymentColors;
      model = next;
      if (geometryChanged) {
        index = buildHitIndex(next.geometry);
        hovered = null;
      }
      if (geometryChanged || colorsChanged) {
        const byKey = new Map<string, { color: string; primary: boolean; marks: Mark[] }>();
        for (const m of next.geometry.marks) {
          const color = next.deploymentColors[m.deployment] ?? "#999";
          const key = `${color}|${m.primary}`;
          let grp = byKey.get(key);
          if (!grp) {
            grp = { color, primary: m.primary, marks: [] };
            byKey.set(key, grp);
          }
          grp.marks.push(m);
        }
        groups = [...byKey.values()];
      }
      resize();
      if (fittedKey !== next.fitKey) {
        fittedKey = next.fitKey;
        fit();
      }
      // Draw now (not on the next frame), so the first draw can be timed.
      if (frame) {
        cancelAnimationFrame(frame);
        frame = 0;
      }
      draw();
      if (next.dataArrivedAt !== null && next.dataArrivedAt !== measuredArrival) {
        measuredArrival = next.dataArrivedAt;
        const ms = performance.now() - next.dataArrivedAt;
        canvas.dataset.renderMs = ms.toFixed(1);
      }
    },
    destroy() {
      if (frame) cancelAnimationFrame(frame);
      observer?.disconnect();
      canvas.removeEventListener("mousemove", onMove);
      canvas.removeEventListener("mouseleave", onLeave);
      canvas.removeEventListener("click", onClick);
      selection.on(".zoom", null);
      model = null;
      index = null;
    },
  };
}

function fmt(v: number): string {
  return Number.isInteger(v) ? String(v) : v.toFixed(1);
}

/** "r0003-s17" → "s17" is enough inside its rack; other names are kept. */
function shortServer(name: string): string {
  const m = /-(s\d+)$/.exec(name);
  return m ? m[1]! : name;
}
