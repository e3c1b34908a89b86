import { useCallback, useMemo, useRef, useState } from "react";

import { ClusterLegend } from "../cluster/ClusterLegend";
import { ClusterToolbar } from "../cluster/ClusterToolbar";
import { ClusterTooltip } from "../cluster/ClusterTooltip";
import { InstanceDetails } from "../cluster/InstanceDetails";
import { instanceRelations } from "../cluster/relations";
import "../cluster/cluster.css";
import { useClusterCanvas } from "../hooks/useClusterCanvas";
import { useClusterLayout } from "../hooks/useClusterLayout";
import type { ClusterCanvasModel } from "../viz/clusterCanvas";
import { type Hit, computeClusterLayout } from "../viz/clusterLayout";
import { appColors } from "../viz/colors";

const EMPTY: readonly number[] = [];

/** The cluster and its placements: racks → servers → host and SmartNIC nodes → instances. */
export function ClusterPage({ clusterName }: { clusterName: string }) {
  const { layout, arrivedAt, loading, error, reload } = useClusterLayout(clusterName);
  const [application, setApplication] = useState("");
  const [collapsed, setCollapsed] = useState(false);
  const [expandedRacks, setExpandedRacks] = useState<ReadonlySet<number>>(() => new Set());
  const [selected, setSelected] = useState<number | null>(null);
  const [hover, setHover] = useState<{ hit: Hit; at: { x: number; y: number } } | null>(null);
  const [fits, setFits] = useState(0);
  const canvasRef = useRef<HTMLCanvasElement | null>(null);
  // The rack grid is shaped like the viewport it is first shown in.
  const [aspect] = useState(() =>
    typeof window === "undefined" ? 1.6 : Math.max(0.5, (window.innerWidth - 400) / Math.max(300, window.innerHeight - 180)),
  );

  const geometry = useMemo(
    () => (layout ? computeClusterLayout(layout, { collapsed, expandedRacks, application, aspect }) : null),
    [layout, collapsed, expandedRacks, application, aspect],
  );
  const colors = useMemo(() => appColors(layout?.deployments.map((d) => d.application) ?? []), [layout]);
  const deploymentColors = useMemo(() => layout?.deployments.map((d) => colors.color(d.application)) ?? [], [layout, colors]);
  const serverNames = useMemo(() => layout?.servers.map((s) => s.name) ?? [], [layout]);
  const relations = useMemo(() => (layout && selected !== null ? instanceRelations(layout, selected) : null), [layout, selected]);

  const model = useMemo<ClusterCanvasModel | null>(
    () =>
      geometry
        ? {
            geometry,
            deploymentColors,
            serverNames,
            selected,
            highlighted: relations?.peerInstances ?? EMPTY,
            fitKey: `${clusterName}|${collapsed}|${fits}`,
            dataArrivedAt: arrivedAt,
          }
        : null,
    [geometry, deploymentColors, serverNames, selected, relations, clusterName, collapsed, fits, arrivedAt],
  );

  const onSelect = useCallback(
    (hit: Hit | null) => {
      if (hit === null) {
        setSelected(null);
      } else if (hit.kind === "instance") {
        setSelected(hit.instance);
      } else if (hit.kind === "rack" && collapsed) {
        const rack = geometry?.racks.find((r) => r.rack === hit.rack);
        if (rack && (rack.collapsed || hit.header)) {
          setExpandedRacks((prev) => {
            const next = new Set(prev);
            if (next.has(hit.rack)) next.delete(hit.rack);
            else next.add(hit.rack);
            return next;
          });
        }
      }
    },
    [collapsed, geometry],
  );
  const onHover = useCallback((hit: Hit | null, at: { x: number; y: number }) => {
    setHover(hit ? { hit, at } : null);
  }, []);
  useClusterCanvas(canvasRef, model, { onHover, onSelect });

  const onCollapsed = useCallback((value: boolean) => {
    setCollapsed(value);
    setExpandedRacks(new Set());
  }, []);
  const onApplication = useCallback((value: string) => {
    setApplication(value);
  }, []);
  const pin = useCallback((i: number) => setSelected(i), []);
  const unpin = useCallback(() => setSelected(null), []);
  const legendApps = useMemo(
    () => (application ? colors.entries.filter((e) => e.application === application) : colors.entries),
    [colors, application],
  );

  const selectedDeployment = relations ? layout?.deployments[relations.self.deployment] : undefined;

  return (
    <div className="cluster-page">
      <ClusterToolbar
        clusterName={clusterName}
        applications={colors.entries.map((e) => e.application)}
        application={application}
        onApplication={onApplication}
        collapsed={collapsed}
        onCollapsed={onCollapsed}
        drawn={geometry?.marks.length ?? 0}
        filtered={geometry?.filteredInstances ?? 0}
        total={layout?.instances.id.length ?? 0}
        servers={layout?.servers.length ?? 0}
        nodes={layout?.nodes.length ?? 0}
        onFit={() => setFits((f) => f + 1)}
        onReload={reload}
      />
      {error && (
        <p className="error" role="alert">
          Could not load the cluster layout: {error}
        </p>
      )}
      <div className="cluster-body">
        <div className="cluster-stage">
          <canvas ref={canvasRef} className="cluster-canvas" data-testid="cluster-canvas" aria-label={`Cluster ${clusterName}`} />
          {loading && !layout && <p className="cluster-hint">Loading layout…</p>}
          {layout && <p className="cluster-hint">Scroll to zoom · drag to pan · hover for details · click an instance to pin it</p>}
          {layout && geometry && hover && <ClusterTooltip data={layout} geometry={geometry} hit={hover.hit} at={hover.at} />}
        </div>
        <aside className="cluster-side">
          {relations && selectedDeployment ? (
            <InstanceDetails
              relations={relations}
              deploymentId={selectedDeployment.id}
              color={colors.color(selectedDeployment.application)}
              onSelect={pin}
              onClose={unpin}
            />
          ) : (
            <section className="panel">
              <h3>Instance</h3>
              <p className="muted" style={{ margin: 0 }}>
                Click an instance to pin its DAG node, shard, role and where its DAG peers sit.
              </p>
            </section>
          )}
          <ClusterLegend apps={legendApps} />
        </aside>
      </div>
    </div>
  );
}
