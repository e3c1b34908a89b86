import { useStoreApi } from "@xyflow/react";
import { useCallback } from "react";

import type { XY } from "../viz/dagLayout";

/** The middle of the canvas's visible part, in flow coordinates (where a person is looking). */
export function useViewCentre(): () => XY {
  const store = useStoreApi();
  return useCallback(() => {
    const { width, height, transform } = store.getState();
    const [x, y, zoom] = transform;
    return { x: (width / 2 - x) / zoom, y: (height / 2 - y) / zoom };
  }, [store]);
}
