import { type RefObject, useEffect, useRef } from "react";
import type { DropTarget } from "../viz/dropTarget";
import type { Hit } from "../viz/clusterLayout";
import { type ClusterCanvas, type ClusterCanvasModel, createClusterCanvas } from "../viz/clusterCanvas";

export interface ClusterCanvasCallbacks {
  onHover: (hit: Hit | null, at: { x: number; y: number }) => void;
  onSelect: (hit: Hit | null) => void;
  /** An instance dragged onto another node. */
  onDrop?: (instance: number, target: DropTarget) => void;
  /** Where the model's anchorInstance is on screen, as it moves (pan, zoom, redraw). */
  onAnchor?: (at: { x: number; y: number } | null) => void;
}

/** Creates the canvas drawing on `ref` for the component's lifetime and feeds it `model`. */
export function useClusterCanvas(
  ref: RefObject<HTMLCanvasElement | null>,
  model: ClusterCanvasModel | null,
  callbacks: ClusterCanvasCallbacks,
): void {
  const drawing = useRef<ClusterCanvas | null>(null);
  // The latest callbacks, without re-creating the drawing when they change.
  const latest = useRef(callbacks);
  latest.current = callbacks;

  useEffect(() => {
    const domNode = ref.current;
    if (domNode === null) return;
    const canvas = createClusterCanvas({
      domNode,
      onHover: (hit, at) => latest.current.onHover(hit, at),
      onSelect: (hit) => latest.current.onSelect(hit),
      onDrop: (instance, target) => latest.current.onDrop?.(instance, target),
      onAnchor: (at) => latest.current.onAnchor?.(at),
    });
    drawing.current = canvas;
    return () => {
      canvas.destroy();
      drawing.current = null;
    };
  }, [ref]);

  useEffect(() => {
    if (model !== null) drawing.current?.update(model);
  }, [model]);
}
