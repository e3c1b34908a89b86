import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from "react";

import { ClusterLegend } from "./ClusterLegend";
import { type HeatBy, useBlockHeat } from "./useBlockHeat";
import { ClusterSearch } from "./ClusterSearch";
import { ClusterToolbar } from "./ClusterToolbar";
import type { SearchHit } from "./clusterSearch";
import { ClusterTooltip, type TooltipLiveNode } from "./ClusterTooltip";
import { DagNodeFocus } from "./DagNodeFocus";
import { focusedEvents, focusedInstances } from "./dagFocus";
import { parseDagFocus, withDagFocus } from "../lib/dagFocusQuery";
import { InstanceDetails } from "./InstanceDetails";
import { LiveLegend } from "./LiveLegend";
import { liveOverlay } from "../viz/liveOverlay";
import { instanceRelations } from "./relations";
import "./cluster.css";
import { useClusterCanvas } from "./useClusterCanvas";
import { useClusterLayout } from "./useClusterLayout";
import { useHash } from "../hooks/useHash";
import { useSession } from "../hooks/useSession";
import { shortId } from "../lib/format";
import { instanceName } from "../lib/instanceName";
import { LiveBanner } from "../live/LiveBanner";
import { useLive } from "../live/useLive";
import { MigrationHistory } from "../migrate/MigrationHistory";
import { MigrationPanel } from "../migrate/MigrationPanel";
import { RefusalNote } from "../migrate/RefusalNote";
import { TargetPicker } from "../migrate/TargetPicker";
import type { DropTarget } from "../viz/dropTarget";
import { isBusy, pendingMove, refusalNote } from "../migrate/migrationFlow";
import { useMigrationFlow } from "../migrate/useMigrationFlow";
import { EventTimeline } from "../timeline/EventTimeline";
import { type Ref, buildLookup } from "../timeline/entries";
import { useEventTimeline } from "../timeline/useEventTimeline";
import type { ClusterCanvasModel } from "../viz/clusterCanvas";
import { type Hit, computeClusterLayout } from "../viz/clusterLayout";
import { appColors } from "../viz/colors";
import { countLooks } from "../viz/instanceLook";
import { MomentDiffPanel } from "../replay/MomentDiffPanel";
import { ReplayBar } from "../replay/ReplayBar";
import { replayMarks } from "../replay/replayMarks";
import { useReplay } from "../replay/useReplay";

const EMPTY: readonly number[] = [];
const READ_ONLY = "read-only token: moving an instance needs the deploy scope";
const REPLAYING = "a past moment is shown: go back to live to move an instance";
/** Events after which the placement is drawn again: an instance moved or was failed over, a deployment was
 * placed, or an agent answered a command (its instance now runs, or was refused). */
const REDRAWS = new Set(["migration.succeeded", "migration.rolled_back", "migration.failed", "failover.done",
                         "deployment.placed", "command.ack", "command.nack"]);

/** The cluster and its placements: racks → servers → host and SmartNIC nodes → instances, live. */
export function ClusterPage({ clusterName }: { clusterName: string }) {
  const session = useSession();
  const canDeploy = session.can("deploy");
  const { layout: liveLayout, arrivedAt: liveArrivedAt, loading, error, reload } = useClusterLayout(clusterName);
  // A past moment (the URL's `at`) is drawn instead of the live placement; `compare` lists what changed.
  const replay = useReplay(clusterName, liveArrivedAt);
  const replaying = replay.query.at !== null;
  const moment = replay.shown.moment;
  const replayArrivedAt = useMemo(() => (moment ? performance.now() : null), [moment]);
  const layout = replaying ? (moment?.layout ?? null) : liveLayout;
  const arrivedAt = replaying ? replayArrivedAt : liveArrivedAt;
  // The live channel opens once the placement is drawn (or could not be read): at 10,000 servers its first
  // message, every node's figures, would otherwise be made and read beside the layout and delay the drawing.
  const live = useLive(liveArrivedAt !== null || error !== null ? clusterName : null, session.token);
  const timeline = useEventTimeline(clusterName, session.token);
  const [historyKey, setHistoryKey] = useState(0);
  const flow = useMigrationFlow(
    useCallback(() => {
      reload();
      setHistoryKey((k) => k + 1);
    }, [reload]),
  );
  const [application, setApplication] = useState("");
  const [collapsed, setCollapsed] = useState(false);
  const [expandedRacks, setExpandedRacks] = useState<ReadonlySet<number>>(() => new Set());
  const [selectedId, setSelectedId] = useState<string | null>(null);
  const [hover, setHover] = useState<{ hit: Hit; at: { x: number; y: number } } | null>(null);
  const [fits, setFits] = useState(0);
  const [colorChoice, setColorChoice] = useState<"application" | "live" | null>(null);
  const [heatChoice, setHeatBy] = useState<HeatBy>("reserved");
  const [focus, setFocus] = useState<{ node: number | null; key: number }>({ node: null, key: 0 });
  const [localNote, setLocalNote] = useState<{ instanceId: string; text: string } | null>(null);
  const canvasRef = useRef<HTMLCanvasElement | null>(null);
  const noteRef = useRef<HTMLDivElement | null>(null);
  const anchorAt = useRef<{ x: number; y: number } | null>(null);
  // The rack grid is shaped like the viewport it is first shown in.
  const [aspect] = useState(() =>
    typeof window === "undefined" ? 1.6 : Math.max(0.5, (window.innerWidth - 400) / Math.max(300, window.innerHeight - 180)),
  );

  const lookup = useMemo(() => buildLookup(layout), [layout]);
  // Selection is kept by instance id: a redrawn layout may list instances in another order.
  const selected = selectedId === null ? null : (lookup.instanceById.get(selectedId) ?? null);
  const geometry = useMemo(
    () => (layout ? computeClusterLayout(layout, { collapsed, expandedRacks, application, aspect }) : null),
    [layout, collapsed, expandedRacks, application, aspect],
  );
  const colors = useMemo(() => appColors(layout?.deployments.map((d) => d.application) ?? []), [layout]);
  const deploymentColors = useMemo(() => layout?.deployments.map((d) => colors.color(d.application)) ?? [], [layout, colors]);
  const serverNames = useMemo(() => layout?.servers.map((s) => s.name) ?? [], [layout]);
  const relations = useMemo(() => (layout && selected !== null ? instanceRelations(layout, selected) : null), [layout, selected]);

  // A DAG node named by the URL (the dashboard's graph links here): its instances highlighted and listed.
  const { hash, setHash } = useHash();
  const dagFocus = useMemo(() => parseDagFocus(hash), [hash]);
  const focused = useMemo(() => (layout && dagFocus ? focusedInstances(layout, dagFocus) : EMPTY), [layout, dagFocus]);
  const focusedApplication = layout?.deployments.find((d) => d.id === dagFocus?.deployment)?.application ?? null;
  const firstFocused = focused[0] ?? null;
  const focusedNode = firstFocused === null || !layout ? null : (layout.instances.node[firstFocused] ?? null);
  useEffect(() => {
    // Shown once per DAG node named: its application only, the drawing centred on its first instance's node.
    if (focusedApplication === null) return;
    setApplication(focusedApplication);
    setCollapsed(false);
    setExpandedRacks(new Set());
    setFocus((f) => ({ node: focusedNode, key: f.key + 1 }));
    // eslint-disable-next-line react-hooks/exhaustive-deps -- not again when the layout is read again
  }, [dagFocus?.deployment, dagFocus?.dagNode, focusedApplication]);

  // Live colouring, unless the person chose application colours (or no node has ever reported).
  const liveNodes = live.view.nodes;
  const reportingEver = useMemo(() => liveNodes.some((n) => n.ts !== null), [liveNodes]);
  // A past moment is drawn in application colours: the live figures are now's, not that moment's.
  const colorMode = replaying ? "application" : (colorChoice ?? (reportingEver ? "live" : "application"));
  // useLive hands out new node objects on every render (ages are reckoned at render time); the overlay and
  // the drawing change only when a node's heartbeat or staleness does, not on every hover.
  const liveKey = liveNodes.map((n) => `${n.stale ? 1 : 0}${n.ts ?? ""}`).join("|");
  const latestLive = useRef(liveNodes);
  latestLive.current = liveNodes;
  const overlay = useMemo(
    () => (layout && colorMode === "live" ? liveOverlay(layout, latestLive.current) : null),
    [layout, colorMode, liveKey],
  );
  // Racks and pods drawn as blocks: by cores reserved, or by live J/request (now's figures: not while replaying).
  const heatBy = replaying ? "reserved" : heatChoice;
  const heat = useBlockHeat(heatBy, layout, geometry, latestLive.current, liveKey);
  const liveByNode = useMemo(() => {
    if (!layout) return null;
    const byId = new Map(liveNodes.map((n) => [n.id, n]));
    return (node: number): TooltipLiveNode | null => {
      const id = layout.nodes[node]?.id;
      return id === undefined ? null : (byId.get(id) ?? null);
    };
  }, [layout, liveNodes]);

  // Migrations: dragging is offered to deploy tokens while no migration of this page is under way.
  const busy = isBusy(flow.state);
  const canMove = canDeploy && !replaying;
  const dragNote = !canDeploy ? READ_ONLY : replaying ? REPLAYING : busy ? "a migration is under way" : "drag onto another node to migrate";
  // By instance id: the layout may have been fetched again (and reordered) since the proposal.
  const move = pendingMove(flow.state);
  const moveInstance = move ? (lookup.instanceById.get(move.instanceId) ?? null) : null;
  const flowNote = refusalNote(flow.state);
  const flowNoteInstance = flow.state.phase === "refused" ? (lookup.instanceById.get(flow.state.move.instanceId) ?? null) : null;
  const noteInstance = flowNote ? flowNoteInstance : localNote ? (lookup.instanceById.get(localNote.instanceId) ?? null) : null;
  const noteText = flowNote?.text ?? localNote?.text ?? null;

  const model = useMemo<ClusterCanvasModel | null>(
    () =>
      geometry && layout
        ? {
            geometry,
            deploymentColors,
            serverNames,
            nodeNames: layout.nodes.map((n) => n.name),
            selected,
            highlighted: relations?.peerInstances ?? focused,
            fitKey: `${clusterName}|${collapsed}|${fits}`,
            dataArrivedAt: arrivedAt,
            instanceColors: overlay?.instanceColors ?? null,
            staleNodes: overlay?.staleNodes ?? null,
            edges: overlay?.edges ?? null,
            dragNodes: canMove && !busy ? layout.nodes : null,
            ghost: move && moveInstance !== null ? { instance: moveInstance, target: move.target } : null,
            anchorInstance: noteText !== null ? noteInstance : null,
            focusNode: focus.node,
            focusKey: focus.key,
            blockHeat: heat.places,
          }
        : null,
    [geometry, layout, deploymentColors, serverNames, selected, relations, focused, clusterName, collapsed, fits, arrivedAt, overlay, canMove, busy, move, moveInstance, noteText, noteInstance, focus, heat],
  );

  const onSelect = useCallback(
    (hit: Hit | null) => {
      if (hit === null) {
        setSelectedId(null);
      } else if (hit.kind === "instance") {
        setSelectedId(layout?.instances.id[hit.instance] ?? null);
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
    [collapsed, geometry, layout],
  );
  const onHover = useCallback((hit: Hit | null, at: { x: number; y: number }) => {
    setHover(hit ? { hit, at } : null);
  }, []);

  const propose = flow.propose;
  const proposeMove = useCallback(
    (instance: number, target: number) => {
      if (!layout) return;
      setLocalNote(null);
      propose({
        instance,
        instanceId: layout.instances.id[instance] ?? "",
        source: layout.instances.node[instance] ?? -1,
        target,
        targetName: layout.nodes[target]?.name ?? "",
      });
    },
    [layout, propose],
  );
  const onDrop = useCallback(
    (instance: number, target: DropTarget) => {
      if (!layout) return;
      if (target.ok) proposeMove(instance, target.node);
      else setLocalNote({ instanceId: layout.instances.id[instance] ?? "", text: `Not moved: ${target.reason ?? "not a target"}` });
    },
    [layout, proposeMove],
  );

  // The refusal note follows its instance as the drawing pans and zooms (set directly: no re-render per frame).
  const placeNote = useCallback(() => {
    const el = noteRef.current;
    const at = anchorAt.current;
    if (!el) return;
    el.style.visibility = at ? "visible" : "hidden";
    if (at) el.style.transform = `translate(${Math.round(at.x + 10)}px, ${Math.round(at.y)}px) translateY(-50%)`;
  }, []);
  const onAnchor = useCallback(
    (at: { x: number; y: number } | null) => {
      anchorAt.current = at;
      placeNote();
    },
    [placeNote],
  );
  useLayoutEffect(placeNote, [placeNote, noteText]);
  useClusterCanvas(canvasRef, model, { onHover, onSelect, onDrop, onAnchor });

  // Moves made by the orchestrator or a failover: draw the placement again, once per burst of events.
  // Only events from around now: the backlog is history (the server's clock is taken as ours, ± 2 s).
  const mountedAt = useRef(Date.now());
  const seen = useRef(0);
  const pending = useRef({ placement: false, history: false });
  useEffect(() => {
    const fresh = timeline.events.filter((e) => e.id > seen.current && Date.parse(e.ts) >= mountedAt.current - 2000);
    seen.current = timeline.lastId;
    if (fresh.some((e) => REDRAWS.has(e.kind))) pending.current.placement = true;
    if (fresh.some((e) => e.kind.startsWith("migration."))) pending.current.history = true;
    if (!pending.current.placement && !pending.current.history) return;
    const timer = setTimeout(() => {
      const { placement, history } = pending.current;
      pending.current = { placement: false, history: false };
      if (placement) reload();
      if (history) setHistoryKey((k) => k + 1);
    }, 300);
    return () => clearTimeout(timer);
  }, [timeline.events, timeline.lastId, reload]);

  const onRef = useCallback(
    (ref: Ref) => {
      if (ref.index === null || !layout) return;
      if (ref.kind === "instance") {
        setSelectedId(layout.instances.id[ref.index] ?? null);
        setFocus((f) => ({ node: layout.instances.node[ref.index!] ?? null, key: f.key + 1 }));
        // Drawn only with every application or its own (nodes are drawn whatever the filter). The filter is
        // the timeline's too: it is kept when it already shows the instance.
        const own = layout.deployments[layout.instances.deployment[ref.index] ?? -1]?.application;
        setApplication((a) => (a === own ? a : ""));
      } else {
        setFocus((f) => ({ node: ref.index, key: f.key + 1 }));
      }
      setExpandedRacks(new Set());
      setCollapsed(false);
    },
    [layout],
  );

  const onSearchHit = useCallback(
    (hit: SearchHit) => {
      if (hit.kind === "application") setApplication(hit.application);
      else if (hit.kind === "node") onRef({ kind: "node", index: hit.node, label: hit.label });
      else onRef({ kind: "instance", index: hit.instance, id: layout?.instances.id[hit.instance] ?? "", label: hit.label });
    },
    [onRef, layout],
  );

  const onCollapsed = useCallback((value: boolean) => {
    setCollapsed(value);
    setExpandedRacks(new Set());
  }, []);
  const onApplication = useCallback((value: string) => {
    setApplication(value);
  }, []);
  const pin = useCallback((i: number) => setSelectedId(layout?.instances.id[i] ?? null), [layout]);
  const unpin = useCallback(() => setSelectedId(null), []);
  const looks = useMemo(() => {
    if (!layout) return null;
    const inst = layout.instances;
    const shown = function* () {
      for (let i = 0; i < inst.id.length; i++) {
        if (!application || layout.deployments[inst.deployment[i] ?? -1]?.application === application) yield i;
      }
    };
    return countLooks(inst.state, shown());
  }, [layout, application]);
  const layoutApps = useMemo(() => colors.entries.map((e) => e.application), [colors]);
  // The timeline also offers applications only its events still name: the toolbar shows such a choice too.
  const toolbarApps = useMemo(
    () => (application === "" || layoutApps.includes(application) ? layoutApps : [...layoutApps, application]),
    [layoutApps, application],
  );
  const legendApps = useMemo(
    () => (application ? colors.entries.filter((e) => e.application === application) : colors.entries),
    [colors, application],
  );
  const instanceLabel = useCallback(
    (i: number) => (layout ? instanceName(layout.instances, i) : "?"),
    [layout],
  );
  const labelById = useCallback(
    (id: string) => {
      const i = lookup.instanceById.get(id);
      return i === undefined ? shortId(id) : instanceLabel(i);
    },
    [lookup, instanceLabel],
  );
  const nodeName = useCallback((n: number) => layout?.nodes[n]?.name ?? "?", [layout]);

  const selectedDeployment = relations ? layout?.deployments[relations.self.deployment] : undefined;
  const events = timeline.events;
  const marks = useCallback((t0: number, t1: number) => replayMarks(events, lookup, t0, t1), [events, lookup]);
  const focusRows = useMemo(
    () =>
      layout
        ? focused.map((i) => {
            const node = layout.nodes[layout.instances.node[i] ?? -1];
            return { index: i, shard: layout.instances.shard[i] ?? 0, replica: layout.instances.replica[i] ?? 0,
                     node: node?.name ?? "?", nodeState: node?.state ?? "?", state: layout.instances.state[i] ?? "?" };
          })
        : [],
    [layout, focused],
  );
  const focusEvents = useMemo(() => focusedEvents(events, lookup, focused), [events, lookup, focused]);

  return (
    <div className="cluster-page">
      <ClusterToolbar
        clusterName={clusterName}
        applications={toolbarApps}
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
        colorMode={colorMode}
        onColorMode={setColorChoice}
        heatBy={heatBy}
        onHeatBy={setHeatBy}
        heatDisabled={replaying ? "J/request is live: a past moment's blocks show the cores reserved then" : null}
      >
        <ClusterSearch layout={layout} onPick={onSearchHit} />
      </ClusterToolbar>
      <ReplayBar
        query={replay.query}
        setQuery={replay.setQuery}
        problems={replay.problems}
        marks={marks}
        loading={replay.shown.loading}
        error={replay.shown.error}
        placementKnown={moment?.placement_known ?? null}
        recordedSince={moment?.placement_recorded_since ?? null}
      />
      {error && !replaying && (
        <p className="error" role="alert">
          Could not load the cluster layout: {error}
        </p>
      )}
      <div className="cluster-body">
        <div className="cluster-stage">
          <canvas ref={canvasRef} className="cluster-canvas" data-testid="cluster-canvas" aria-label={`Cluster ${clusterName}`} />
          {/* Over the drawing, not above it: the canvas (and the drag targets on it) never moves when it shows. */}
          <div className="cluster-stage-banner">
            {colorMode === "live" && <LiveBanner connection={live.connection} error={live.error} attempt={live.attempt} />}
          </div>
          {(replaying ? replay.shown.loading : loading) && !layout && <p className="cluster-hint">Loading layout…</p>}
          {layout && (
            <p className="cluster-hint">
              Scroll to zoom · drag to pan · hover for details · click an instance to pin it ·{" "}
              {canMove ? "drag an instance onto another node to migrate it" : `no dragging: ${canDeploy ? REPLAYING : READ_ONLY}`}
            </p>
          )}
          {layout && geometry && hover && (
            <ClusterTooltip
              data={layout}
              geometry={geometry}
              hit={hover.hit}
              at={hover.at}
              liveNode={colorMode === "live" ? liveByNode : null}
              dragNote={dragNote}
              blockFigures={heat.figures}
            />
          )}
          {noteText !== null && (
            <RefusalNote
              ref={noteRef}
              text={noteText}
              onClose={() => {
                setLocalNote(null);
                if (flowNote) flow.dismiss();
              }}
            />
          )}
        </div>
        <aside className="cluster-side">
          {dagFocus && (
            <DagNodeFocus
              application={focusedApplication ?? "a deployment not placed here"}
              dagNode={dagFocus.dagNode}
              instances={focusRows}
              events={focusEvents}
              onPin={pin}
              onClose={() => setHash(withDagFocus(window.location.hash, null))}
            />
          )}
          {replay.query.compare !== null && (
            <MomentDiffPanel diff={replay.diff} loading={replay.diffLoading} error={replay.diffError} />
          )}
          <MigrationPanel state={flow.state} instanceLabel={labelById} sourceName={nodeName} onConfirm={flow.confirm} onDismiss={flow.dismiss} />
          {relations && selectedDeployment && layout && selected !== null ? (
            <InstanceDetails
              relations={relations}
              deploymentId={selectedDeployment.id}
              color={colors.color(selectedDeployment.application)}
              onSelect={pin}
              onClose={unpin}
            >
              <TargetPicker
                key={selectedId}
                nodes={layout.nodes}
                source={layout.instances.node[selected] ?? -1}
                disabledReason={!canDeploy ? `Read-only session: ${READ_ONLY}.` : replaying ? `Replay: ${REPLAYING}.` : null}
                busy={busy}
                onPick={(target) => proposeMove(selected, target)}
              />
            </InstanceDetails>
          ) : (
            <section className="panel">
              <h3>Instance</h3>
              <p className="muted" style={{ margin: 0 }}>
                Click an instance to pin its DAG node, shard, role and where its DAG peers sit
                {canDeploy ? ", or drag it onto another node to migrate it." : "."}
              </p>
            </section>
          )}
          {overlay && layout && (
            <LiveLegend reporting={overlay.reporting} nodes={layout.nodes.length} maxRps={overlay.maxRps} edges={overlay.edges.filter((e) => e.rps !== null).length} />
          )}
          <ClusterLegend apps={legendApps} looks={looks} heatBy={heatBy} heatRange={heat.range} />
        </aside>
      </div>
      <div className="cluster-lower">
        <EventTimeline
          events={timeline.events}
          lookup={lookup}
          connection={timeline.connection}
          error={timeline.error}
          attempt={timeline.attempt}
          applications={layoutApps}
          application={application}
          onApplication={onApplication}
          onRef={onRef}
        />
        <MigrationHistory cluster={clusterName} refreshKey={historyKey} instanceLabel={labelById} />
      </div>
    </div>
  );
}
