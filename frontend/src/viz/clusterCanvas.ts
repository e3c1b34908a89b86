// Draws the cluster geometry (clusterLayout.ts) on a <canvas>, with d3-zoom for zoom and pan,
// d3-drag for dragging an instance onto another node (a migration), and a grid index for
// hit-testing. A canvas, not SVG: 5,000 node boxes and 10K instance marks as DOM elements would
// be slow to create and to pan. No React here.

import { type D3DragEvent, type D3ZoomEvent, type ZoomBehavior, type ZoomTransform, drag, select, zoom, zoomIdentity } from "d3";

import { DRAG_THRESHOLD_PX, type DropNode, type DropTarget, dropTargetAt, movedEnough } from "./dropTarget";
import {
  type ClusterGeometry,
  type Hit,
  type HitIndex,
  type Mark,
  type Rect,
  blockAt,
  buildHitIndex,
  coarseLevel,
  hitTest,
} from "./clusterLayout";
import { fitTransform, shortNodeName } from "./fitTransform";
import { heatColour } from "./heatRamp";
import { type InstanceLook, REFUSED_COLOR, UNRUN_ALPHA } from "./instanceLook";

/** A line between two instances' marks (live traffic along a DAG edge). */
export interface CanvasEdge {
  from: number;
  to: number;
  color: string;
  /** CSS pixels. */
  width: number;
}

export interface ClusterCanvasModel {
  geometry: ClusterGeometry;
  /** Fill colour per deployment index. */
  deploymentColors: readonly string[];
  /** Rack and server names to print (by rack / server index). */
  serverNames: readonly string[];
  /** Node names (by layout node index), printed in their boxes when the zoom leaves room. */
  nodeNames?: readonly string[] | null;
  /** The pinned instance and the instances to highlight with it (its DAG peers). */
  selected: number | null;
  highlighted: readonly number[];
  /** When this changes, the view is refitted to the drawing. */
  fitKey: string;
  /** performance.now() when the data arrived; the first draw of it sets data-render-ms. */
  dataArrivedAt: number | null;
  /** Fill per instance instead of its deployment's colour (live colouring), or null. */
  instanceColors?: readonly string[] | null;
  /** 1 for nodes (by layout index) whose live figures are not current: drawn greyed out. */
  staleNodes?: Uint8Array | null;
  /** Lines between instances (drawn under the marks). */
  edges?: readonly CanvasEdge[] | null;
  /** Dragging instances onto nodes: the layout's nodes (names, states), or null when not allowed. */
  dragNodes?: readonly DropNode[] | null;
  /** A proposed move under way: a ghost of the instance on the target node (by layout indices). */
  ghost?: { instance: number; target: number } | null;
  /** The instance whose screen position onAnchor reports (a note next to it), or null. */
  anchorInstance?: number | null;
  /** A node to outline (from the event timeline); `focusKey` changing scrolls it into view. */
  focusNode?: number | null;
  focusKey?: number;
  /** The colour of each rack and pod drawn as one block, as a place on the heat ramp (0..1; NaN: no figure,
   * drawn grey), and the figure printed in each pod block; by default the share of its cores reserved. */
  blockHeat?: { racks: ArrayLike<number>; pods: ArrayLike<number>; podFigures: readonly string[] } | null;
}

export interface ClusterCanvasOptions {
  /** The <canvas> element, sized by CSS; its backing store follows its size and the DPR. */
  domNode: HTMLCanvasElement;
  /** The thing under the pointer (null when nothing), with the pointer in canvas CSS pixels. */
  onHover?: (hit: Hit | null, at: { x: number; y: number }) => void;
  /** A click (not a drag) on something, or on nothing (null). */
  onSelect?: (hit: Hit | null) => void;
  /** An instance dropped on a node box other than where it started (`ok`: worth asking the API). */
  onDrop?: (instance: number, target: DropTarget) => void;
  /** Where model.anchorInstance's mark is on screen (canvas CSS pixels), after every draw that moves it. */
  onAnchor?: (at: { x: number; y: number } | null) => void;
}

export interface ClusterCanvas {
  update(model: ClusterCanvasModel): void;
  destroy(): void;
}

/** A node shown (search, a timeline link) narrower than this on screen (CSS px) is zoomed to. */
const REVEAL_MIN_PX = 24;

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
  stale: "rgba(150, 156, 166, 0.3)",
  dropOk: "#1f8a4c",
  dropBad: "#c0392b",
  focus: "#2457c5",
  pod: "#eaeef4",
  podBorder: "#9aa5b4",
  noFigure: "#c9ced6",
};

interface Dragging {
  instance: number;
  source: number;
  /** Pointer, world units; and where it went down, CSS pixels. */
  wx: number;
  wy: number;
  x0: number;
  y0: number;
  moved: boolean;
  target: DropTarget | null;
}

export function createClusterCanvas({ domNode, onHover, onSelect, onDrop, onAnchor }: ClusterCanvasOptions): ClusterCanvas {
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
  let dragging: Dragging | null = null;
  let anchorAt = "";
  let focusedKey: number | undefined;
  // Marks grouped by colour, role and look, rebuilt on update: few fillStyle changes per draw; and the refused
  // ones, crossed out over them.
  let groups: { color: string; primary: boolean; look: InstanceLook; marks: Mark[] }[] = [];
  let refused: Mark[] = [];

  const zoomBehavior: ZoomBehavior<HTMLCanvasElement, unknown> = zoom<HTMLCanvasElement, unknown>()
    .scaleExtent([0.02, 40])
    .on("zoom", (event: D3ZoomEvent<HTMLCanvasElement, unknown>) => {
      transform = event.transform;
      if (event.sourceEvent) userMoved = true;
      schedule();
    });
  const selection = select(canvas);

  // The drag is registered before the zoom: a press on an instance mark (when dragging is allowed)
  // starts a drag and stops the event there; anywhere else it has no subject and the zoom pans.
  const dragBehavior = drag<HTMLCanvasElement, unknown, Dragging | null>()
    .container(() => canvas)
    .clickDistance(DRAG_THRESHOLD_PX)
    .filter((event: MouseEvent) => !event.ctrlKey && !event.button && !!model?.dragNodes)
    .subject((event: D3DragEvent<HTMLCanvasElement, unknown, unknown>) => {
      if (!model || !index) return null;
      const [wx, wy] = transform.invert([event.x, event.y]);
      const hit = hitTest(model.geometry, index, wx, wy, 3 / transform.k);
      if (hit?.kind !== "instance") return null;
      const source = instanceNode(hit.instance);
      return source < 0 ? null : { instance: hit.instance, source, wx, wy, x0: event.x, y0: event.y, moved: false, target: null };
    })
    .on("start", (event: D3DragEvent<HTMLCanvasElement, unknown, Dragging>) => {
      dragging = event.subject;
    })
    .on("drag", (event: D3DragEvent<HTMLCanvasElement, unknown, Dragging>) => {
      const d = dragging;
      if (!d || !model || !index || !model.dragNodes) return;
      if (!d.moved && !movedEnough(event.x - d.x0, event.y - d.y0)) return;
      if (!d.moved) {
        d.moved = true;
        hovered = null;
        onHover?.(null, { x: 0, y: 0 });
      }
      [d.wx, d.wy] = transform.invert([event.x, event.y]);
      d.target = dropTargetAt(model.geometry, index, model.dragNodes, d.source, d.wx, d.wy);
      canvas.style.cursor = d.target?.ok ? "copy" : "no-drop";
      schedule();
    })
    .on("end", () => {
      const d = dragging;
      dragging = null;
      canvas.style.cursor = "";
      schedule();
      if (d?.moved && d.target && d.target.node !== d.source) onDrop?.(d.instance, d.target);
    });
  selection.call(dragBehavior).call(zoomBehavior).on("dblclick.zoom", null);

  function instanceNode(instance: number): number {
    if (!model) return -1;
    const mi = model.geometry.markOfInstance[instance] ?? -1;
    if (mi < 0) return -1;
    const m = model.geometry.marks[mi]!;
    // The node box holding the mark.
    for (const r of model.geometry.racks) {
      if (mi < r.markStart || mi >= r.markEnd) continue;
      for (let n = r.nodeStart; n < r.nodeEnd; n++) {
        const b = model.geometry.nodes[n]!;
        if (m.x >= b.x && m.x <= b.x + b.w && m.y >= b.y && m.y <= b.y + b.h) return b.node;
      }
    }
    return -1;
  }

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
    // In CSS pixels (cssW × cssH, not canvas.width in device pixels): the drawing fills the canvas at any DPR.
    const t = fitTransform(g.w, g.h, cssW, cssH);
    // Out to a quarter of the fit: far enough for a cluster with pods to show each as one block.
    zoomBehavior.scaleExtent([Math.min(t.k / 4, 0.5), Math.max(40, t.k)]);
    // Sets `transform` through the zoom listener (synchronously), then we draw.
    selection.call(zoomBehavior.transform, zoomIdentity.translate(t.x, t.y).scale(t.k));
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

    // Zoomed out, a rack too narrow on screen to show its nodes is one block coloured by its heat (at 10,000
    // servers the frame draws a few hundred blocks, not 50,000 boxes); further out, each pod is one block.
    const level = coarseLevel(g, k);
    const heatFill = (value: number) => (Number.isNaN(value) ? COLORS.noFigure : heatColour(value));
    const textOk = k * 11 >= 7; // world 11 px text is at least 7 screen px
    // Text grows with the zoom up to a readable size on screen, no further (a fitted small cluster is zoomed far in).
    const textPx = (world: number, screenMax: number) => Math.min(world, screenMax * px);
    ctx.textBaseline = "middle";

    const pods = g.pods.map((p, i) => ({ p, i })).filter(({ p }) => visible(p.x, p.y, p.w, p.h));
    ctx.lineWidth = px;
    for (const { p, i } of pods) {
      ctx.fillStyle = level === "pod" ? heatFill(model.blockHeat?.pods[i] ?? p.summary.utilisation) : COLORS.pod;
      ctx.fillRect(p.x, p.y, p.w, p.h);
      ctx.strokeStyle = COLORS.podBorder;
      ctx.strokeRect(p.x, p.y, p.w, p.h);
    }
    // Pod titles: inside each block when pods are blocks (12 px on screen, where they fit), else in the pod's
    // title strip once it is tall enough on screen to hold them.
    const blockText = 12 * px;
    const stripText = textPx(14, 14);
    const titled = level === "pod" || (g.pods[0] !== undefined && g.pods[0].header.h * k >= 12);
    if (titled) {
      ctx.fillStyle = COLORS.rackText;
      for (const { p, i } of pods) {
        const s = p.summary;
        const racks = `${p.racks.length} rack${p.racks.length === 1 ? "" : "s"}`;
        if (level === "pod") {
          ctx.font = `600 ${blockText}px system-ui, sans-serif`;
          const lines = [p.name, model.blockHeat?.podFigures[i] ?? `${Math.round(s.utilisation * 100)}% cores`];
          if (ctx.measureText(lines[0]!).width > p.w - 8 * px || blockText * 2.6 > p.h) continue;
          lines.forEach((line, n) => ctx.fillText(line, p.x + 4 * px, p.y + blockText * (0.9 + n * 1.2), p.w - 8 * px));
        } else {
          ctx.font = `600 ${stripText}px system-ui, sans-serif`;
          const label = `${p.name} · ${racks} · ${s.servers} servers · ${Math.round(s.utilisation * 100)}% cores`;
          ctx.fillText(label, p.x + 4 * px, p.y + p.header.h / 2, p.w - 8 * px);
        }
      }
    }
    const racks = level === "pod" ? [] : g.racks.filter((r) => visible(r.x, r.y, r.w, r.h));
    const coarse = level === "rack";
    const detailed = coarse ? racks.filter((r) => r.collapsed) : racks;

    // Racks.
    ctx.fillStyle = COLORS.rack;
    for (const r of detailed) ctx.fillRect(r.x, r.y, r.w, r.h);
    for (const r of coarse ? racks : []) {
      if (r.collapsed) continue;
      ctx.fillStyle = heatFill(model.blockHeat?.racks[r.rack] ?? r.summary.utilisation);
      ctx.fillRect(r.x, r.y, r.w, r.h);
    }
    ctx.fillStyle = COLORS.rackHeader;
    for (const r of racks) ctx.fillRect(r.header.x, r.header.y, r.header.w, r.header.h);
    ctx.strokeStyle = COLORS.rackBorder;
    ctx.beginPath();
    for (const r of racks) ctx.rect(r.x, r.y, r.w, r.h);
    ctx.stroke();
    if (textOk) {
      ctx.font = `600 ${textPx(11, 14)}px system-ui, sans-serif`;
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
        ctx.font = `${textPx(11, 14)}px system-ui, sans-serif`;
        ctx.fillStyle = COLORS.muted;
        ctx.fillText(`${s.servers} servers · ${s.hostNodes} host + ${s.smartnicNodes} SmartNIC nodes`, bx, by + 6, bw);
        ctx.fillText(`${s.instances} instances (${s.primaries} primary)${s.failed > 0 ? ` · ${s.failed} refused by their agents` : ""}`, bx, by + 19, bw);
        ctx.fillText(`cores ${fmt(s.usedCores)} / ${fmt(s.cores)} (${Math.round(s.utilisation * 100)}%)`, bx, by + 32, bw);
      }
      ctx.fillStyle = COLORS.barTrack;
      ctx.fillRect(bx, by + 42, bw, 6);
      ctx.fillStyle = s.utilisation > 0.9 ? COLORS.barHigh : COLORS.bar;
      ctx.fillRect(bx, by + 42, bw * s.utilisation, 6);
    }

    // Node boxes, batched by kind; utilisation bars.
    const boxes = [];
    for (const r of detailed) for (let i = r.nodeStart; i < r.nodeEnd; i++) {
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

    // Nodes whose live figures are not current.
    const stale = model.staleNodes;
    if (stale) {
      ctx.fillStyle = COLORS.stale;
      ctx.beginPath();
      for (const n of boxes) if (stale[n.node] === 1) ctx.rect(n.x, n.y, n.w, n.h);
      ctx.fill();
    }

    // Server names.
    if (k * 9 >= 6 && detailed.length > 0) {
      ctx.font = `${textPx(9, 12)}px system-ui, sans-serif`;
      ctx.fillStyle = COLORS.muted;
      for (const s of g.servers) {
        if (!visible(s.x, s.y, s.w, s.h)) continue;
        ctx.fillText(shortServer(model.serverNames[s.server] ?? ""), s.x, s.y + s.h / 2, 58);
      }
    }

    // Node names, where a box is wide and tall enough on screen for 10 px text (bottom right, above the bar).
    const nodeNames = model.nodeNames;
    if (nodeNames && boxes.length > 0 && boxes[0]!.h * k >= 16) {
      const size = 10 * px;
      ctx.font = `${size}px system-ui, sans-serif`;
      ctx.textAlign = "right";
      ctx.textBaseline = "alphabetic";
      for (const n of boxes) {
        const label = shortNodeName(nodeNames[n.node] ?? "");
        const width = ctx.measureText(label).width;
        if (label === "" || width > n.w - 4 * px) continue;
        const x = n.x + n.w - 2 * px;
        const y = n.bar.y - 2 * px;
        ctx.fillStyle = "rgba(255, 255, 255, 0.75)";
        ctx.fillRect(x - width - px, y - size, width + 2 * px, size + 2 * px);
        ctx.fillStyle = COLORS.rackText;
        ctx.fillText(label, x, y);
      }
      ctx.textAlign = "left";
      ctx.textBaseline = "middle";
    }

    const markOf = (i: number) => {
      const mi = g.markOfInstance[i] ?? -1;
      return mi >= 0 ? g.marks[mi] : undefined;
    };

    // Live traffic along DAG edges, under the marks (none where every rack is a block).
    const marksShown = level === null && detailed.length > 0;
    if (marksShown && model.edges && model.edges.length > 0) {
      ctx.globalAlpha = 0.75;
      ctx.lineCap = "round";
      for (const e of model.edges) {
        const a = markOf(e.from);
        const b = markOf(e.to);
        if (!a || !b) continue;
        const ax = a.x + a.w / 2;
        const ay = a.y + a.h / 2;
        const bx = b.x + b.w / 2;
        const by = b.y + b.h / 2;
        if (Math.max(ax, bx) < vx0 || Math.min(ax, bx) > vx1 || Math.max(ay, by) < vy0 || Math.min(ay, by) > vy1) continue;
        ctx.strokeStyle = e.color;
        ctx.lineWidth = e.width * px;
        ctx.beginPath();
        ctx.moveTo(ax, ay);
        ctx.lineTo(bx, by);
        ctx.stroke();
      }
      ctx.globalAlpha = 1;
      ctx.lineCap = "butt";
    }

    // Instance marks: primaries filled, backups outlined; by state, nothing executes it (no agent runs its
    // node): faded; deploying or seeding: dashed, a primary lightly filled; refused by its agent: crossed out.
    const inset = Math.min(0.5, px / 2);
    const inView = (m: Mark) => m.x + m.w >= vx0 && m.x <= vx1 && m.y + m.h >= vy0 && m.y <= vy1;
    const outline = (marks: Mark[]) => {
      ctx.beginPath();
      for (const m of marks) if (inView(m)) ctx.rect(m.x + inset, m.y + inset, m.w - 2 * inset, m.h - 2 * inset);
      ctx.stroke();
    };
    for (const grp of marksShown ? groups : []) {
      const pending = grp.look === "pending";
      ctx.globalAlpha = grp.look === "unrun" ? UNRUN_ALPHA : pending ? 0.3 : 1;
      if (grp.primary) {
        ctx.fillStyle = grp.color;
        ctx.beginPath();
        for (const m of grp.marks) if (inView(m)) ctx.rect(m.x, m.y, m.w, m.h);
        ctx.fill();
      }
      if (!grp.primary || pending) {
        ctx.globalAlpha = grp.look === "unrun" ? UNRUN_ALPHA : 1;
        ctx.strokeStyle = grp.color;
        ctx.lineWidth = Math.min(1, Math.max(px, 0.8));
        if (pending) ctx.setLineDash([Math.max(0.8, 1.5 * px), Math.max(0.6, px)]);
        outline(grp.marks);
        ctx.setLineDash([]);
      }
    }
    ctx.globalAlpha = 1;
    if (refused.length > 0) {
      ctx.strokeStyle = REFUSED_COLOR;
      ctx.lineWidth = Math.max(0.9, 1.5 * px);
      ctx.beginPath();
      for (const m of refused) {
        if (!inView(m)) continue;
        ctx.rect(m.x - px, m.y - px, m.w + 2 * px, m.h + 2 * px);
        ctx.moveTo(m.x, m.y);
        ctx.lineTo(m.x + m.w, m.y + m.h);
        ctx.moveTo(m.x + m.w, m.y);
        ctx.lineTo(m.x, m.y + m.h);
      }
      ctx.stroke();
    }

    // Selection: the pinned instance, its DAG peers, and lines between them.
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
      } else if (hovered.kind === "pod") {
        const p = g.pods[hovered.pod];
        if (p) ctx.strokeRect(p.x, p.y, p.w, p.h);
      } else {
        const r = g.racks[hovered.rack];
        const block = r && level === "rack" && !r.collapsed;
        if (r && (block || r.collapsed || (r.collapsible && hovered.header))) ctx.strokeRect(r.x, r.y, r.w, hovered.header && !r.collapsed ? r.header.h : r.h);
      }
    }

    // A node picked in the event timeline.
    if (model.focusNode != null) {
      const n = g.nodes.find((b) => b.node === model!.focusNode);
      if (n) {
        ctx.strokeStyle = COLORS.focus;
        ctx.lineWidth = 3 * px;
        const pad = 2 * px;
        ctx.strokeRect(n.x - pad, n.y - pad, n.w + 2 * pad, n.h + 2 * pad);
      }
    }

    // A proposed move: the instance's ghost on the target, a dashed line from where it is.
    if (model.ghost) drawMove(model.ghost.instance, model.ghost.target, null, COLORS.focus);

    // A drag under way.
    if (dragging?.moved) {
      const t = dragging.target;
      drawMove(dragging.instance, t?.node ?? null, { x: dragging.wx, y: dragging.wy }, t === null ? COLORS.select : t.ok ? COLORS.dropOk : COLORS.dropBad);
    }

    // Where the whole drawing is on screen (canvas CSS pixels), for tests and tools: "x0 y0 x1 y1".
    canvas.dataset.drawing = [transform.applyX(g.x), transform.applyY(g.y), transform.applyX(g.x + g.w), transform.applyY(g.y + g.h)]
      .map((v) => v.toFixed(1))
      .join(" ");

    reportAnchor();

    function drawMove(instance: number, target: number | null, at: { x: number; y: number } | null, color: string): void {
      const m = markOf(instance);
      if (!m || !ctx) return;
      const box = target === null ? undefined : g.nodes.find((b) => b.node === target);
      if (box) {
        ctx.strokeStyle = color;
        ctx.lineWidth = 2.5 * px;
        ctx.strokeRect(box.x, box.y, box.w, box.h);
      }
      const to = at ?? (box ? { x: box.x + box.w - m.w - 2, y: box.y + 2 } : null);
      if (!to) return;
      ctx.strokeStyle = color;
      ctx.lineWidth = 1.5 * px;
      ctx.setLineDash([4 * px, 3 * px]);
      ctx.beginPath();
      ctx.moveTo(m.x + m.w / 2, m.y + m.h / 2);
      ctx.lineTo(to.x + (at ? 0 : m.w / 2), to.y + (at ? 0 : m.h / 2));
      ctx.stroke();
      ctx.setLineDash([]);
      // The ghost: at least 8 screen pixels, so it can be seen when zoomed out.
      const size = Math.max(m.w, 8 * px);
      const gx = at ? to.x - size / 2 : to.x;
      const gy = at ? to.y - size / 2 : to.y;
      ctx.globalAlpha = 0.7;
      ctx.fillStyle = color;
      ctx.fillRect(gx, gy, size, size);
      ctx.globalAlpha = 1;
    }
  }

  function reportAnchor(): void {
    if (!onAnchor || !model) return;
    const i = model.anchorInstance;
    const mi = i == null ? -1 : (model.geometry.markOfInstance[i] ?? -1);
    const m = mi >= 0 ? model.geometry.marks[mi] : undefined;
    const at = m ? { x: transform.applyX(m.x + m.w), y: transform.applyY(m.y + m.h / 2) } : null;
    const key = at ? `${Math.round(at.x)},${Math.round(at.y)}` : "";
    if (key === anchorAt) return;
    anchorAt = key;
    onAnchor(at);
  }

  /** Pans (keeping the zoom) so the focused node is in view, when it is not. */
  function reveal(): void {
    if (!model || model.focusNode == null) return;
    const n = model.geometry.nodes.find((b) => b.node === model!.focusNode);
    if (!n) return;
    const [x0, y0] = transform.apply([n.x, n.y]);
    const [x1, y1] = transform.apply([n.x + n.w, n.y + n.h]);
    // Shown already, and big enough to tell apart (zoomed out on 10,000 servers a node is a pixel in a rack block).
    if (x0 >= 0 && y0 >= 0 && x1 <= cssW && y1 <= cssH && x1 - x0 >= REVEAL_MIN_PX) return;
    const k = Math.max(transform.k, 1);
    selection.call(zoomBehavior.transform, zoomIdentity.translate(cssW / 2 - (n.x + n.w / 2) * k, cssH / 2 - (n.y + n.h / 2) * k).scale(k));
  }

  function pointer(event: MouseEvent): { x: number; y: number; wx: number; wy: number } {
    const rect = canvas.getBoundingClientRect();
    const x = event.clientX - rect.left;
    const y = event.clientY - rect.top;
    const [wx, wy] = transform.invert([x, y]);
    return { x, y, wx, wy };
  }

  function hitAt(event: MouseEvent): { hit: Hit | null; x: number; y: number; block: boolean } {
    const p = pointer(event);
    if (!model || !index) return { hit: null, x: p.x, y: p.y, block: false };
    // A pod or rack drawn as one block is what is under the pointer, not the marks it hides.
    const level = coarseLevel(model.geometry, transform.k);
    const block = level === null ? null : blockAt(model.geometry, level, p.wx, p.wy);
    if (block) return { hit: block, x: p.x, y: p.y, block: true };
    // A few screen pixels of slop so tiny marks can be hovered when zoomed out.
    return { hit: hitTest(model.geometry, index, p.wx, p.wy, 3 / transform.k), x: p.x, y: p.y, block: false };
  }

  /** Zooms in until `box` fills the view: a pod's racks, or a rack's nodes, are then drawn in full. */
  function zoomInto(box: Rect): void {
    const t = fitTransform(box.w, box.h, cssW, cssH, 24);
    const k = Math.max(t.k, transform.k);
    selection.call(zoomBehavior.transform, zoomIdentity.translate(cssW / 2 - (box.x + box.w / 2) * k, cssH / 2 - (box.y + box.h / 2) * k).scale(k));
    userMoved = true;
  }

  const sameHit = (a: Hit | null, b: Hit | null) => JSON.stringify(a) === JSON.stringify(b);

  function onMove(event: MouseEvent): void {
    if (event.buttons !== 0) return; // panning
    const { hit, x, y } = hitAt(event);
    // Over an instance: "move" when it can be dragged to another node, else "pointer" (it can be pinned).
    canvas.style.cursor = hit?.kind === "instance" ? (model?.dragNodes ? "move" : "pointer") : "";
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
    const { hit, block } = hitAt(event);
    if (block && model && hit?.kind === "pod") zoomInto(model.geometry.pods[hit.pod]!);
    else if (block && model && hit?.kind === "rack") zoomInto(model.geometry.racks[hit.rack]!);
    else onSelect?.(hit);
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
      const colorsChanged = !model || model.deploymentColors !== next.deploymentColors || model.instanceColors !== next.instanceColors;
      model = next;
      if (geometryChanged) {
        index = buildHitIndex(next.geometry);
        hovered = null;
      }
      if (geometryChanged || colorsChanged) {
        const byKey = new Map<string, { color: string; primary: boolean; look: InstanceLook; marks: Mark[] }>();
        for (const m of next.geometry.marks) {
          const color = next.instanceColors?.[m.instance] ?? next.deploymentColors[m.deployment] ?? "#999";
          const key = `${color}|${m.primary}|${m.look}`;
          let grp = byKey.get(key);
          if (!grp) {
            grp = { color, primary: m.primary, look: m.look, marks: [] };
            byKey.set(key, grp);
          }
          grp.marks.push(m);
        }
        groups = [...byKey.values()];
        refused = next.geometry.marks.filter((m) => m.look === "failed");
      }
      resize();
      if (fittedKey !== next.fitKey) {
        fittedKey = next.fitKey;
        fit();
      }
      if (next.focusKey !== undefined && next.focusKey !== focusedKey) {
        focusedKey = next.focusKey;
        reveal();
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
      selection.on(".zoom", null).on(".drag", null);
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
