import { type ReactNode, useEffect } from "react";
import { ConnectionBanner } from "./components/ConnectionBanner";
import { DeploymentsList } from "./components/DeploymentsList";
import { Header } from "./components/Header";
import { HomePage } from "./components/HomePage";
import { JobsList } from "./components/JobsList";
import { NotFound } from "./components/NotFound";
import { TokenBox } from "./components/TokenBox";
import { useHealth } from "./hooks/useHealth";
import { useRoute } from "./hooks/useRoute";
import { type Session, SessionContext } from "./hooks/useSession";
import { useSessionState } from "./hooks/useSessionState";
import { type Route, navSection, routeTitle } from "./lib/route";
import { AdminPage } from "./admin/AdminPage";
import { ApplicationPage } from "./applications/ApplicationPage";
import { ApplicationsPage } from "./applications/ApplicationsPage";
import { ClusterPage } from "./cluster/ClusterPage";
import { ClustersPage } from "./clusters/ClustersPage";
import { DashboardPage } from "./dashboard/DashboardPage";
import { DeployPage } from "./deploy/DeployPage";
import { DeploymentPage } from "./deployments/DeploymentPage";
import { EditorPage } from "./editor/EditorPage";
import { NodeEnergyPage } from "./energy/NodeEnergyPage";
import { PlannerPage } from "./planner/PlannerPage";

interface RoutedProps {
  route: Exclude<Route, { name: "home" }>;
  session: Session;
  navigate: (to: Route) => void;
}

/** The page for a route other than home; pages are keyed so a new name mounts a fresh page. */
function Routed({ route, session, navigate }: RoutedProps): ReactNode {
  const canWrite = session.can("write");
  const canDeploy = session.can("deploy");
  switch (route.name) {
    case "editor":
      return (
        <EditorPage
          key={`app:${route.application ?? ""}`}
          applicationName={route.application}
          canWrite={canWrite}
          onDeploy={(application) => navigate({ name: "deploy", application })}
        />
      );
    case "template":
      return (
        <EditorPage
          key={`template:${route.template}`}
          template={route.template}
          canWrite={canWrite}
          onDeploy={(application) => navigate({ name: "deploy", application })}
        />
      );
    case "deploy":
      return (
        <DeployPage
          key={route.application}
          applicationName={route.application}
          canDeploy={canDeploy}
          onDeployed={(_deploymentId, cluster) => navigate({ name: "cluster", cluster })}
        />
      );
    case "cluster":
      return <ClusterPage key={route.cluster} clusterName={route.cluster} />;
    case "dashboard":
      return <DashboardPage key={route.cluster} clusterName={route.cluster} />;
    case "node":
      return <NodeEnergyPage key={`${route.cluster}/${route.node}`} clusterName={route.cluster} nodeId={route.node} />;
    case "planner":
      return <PlannerPage />;
    case "clusters":
      return <ClustersPage canWrite={canWrite} />;
    case "applications":
      return <ApplicationsPage canWrite={canWrite} />;
    case "application":
      return (
        <ApplicationPage
          key={route.application}
          name={route.application}
          canWrite={canWrite}
          canDeploy={canDeploy}
          onDeleted={() => navigate({ name: "applications" })}
        />
      );
    case "deployments":
      return <DeploymentsList />;
    case "deployment":
      return <DeploymentPage key={route.deployment} deploymentId={route.deployment} canDeploy={canDeploy} />;
    case "jobs":
      return <JobsList />;
    case "admin":
      return <AdminPage canAdmin={session.can("admin")} />;
    case "not-found":
      return <NotFound path={route.path} />;
  }
}

export function App() {
  const health = useHealth();
  const session = useSessionState(health.generation);
  const { route, navigate } = useRoute();

  useEffect(() => {
    document.title = routeTitle(route);
  }, [route]);

  let content: ReactNode;
  if (route.name === "home") {
    content = <HomePage health={health} session={session} />;
  } else if (session.me === null) {
    // Nothing else works without an accepted token: ask for one (or wait for the check).
    content =
      session.status === "checking" ? (
        <p className="muted shell-wait">Checking the token…</p>
      ) : (
        <div className="shell-signin">
          <TokenBox session={session} wide />
        </div>
      );
  } else {
    // Signed in before: keep the page mounted (unsaved work survives) and ask for a token above it on a 401.
    content = (
      <>
        {session.status === "refused" && (
          <div className="shell-signin">
            <TokenBox session={session} wide />
          </div>
        )}
        <Routed route={route} session={session} navigate={navigate} />
      </>
    );
  }

  return (
    <SessionContext.Provider value={session}>
      {health.connection === "lost" && <ConnectionBanner failedAttempts={health.failedAttempts} />}
      <Header active={navSection(route)} session={session} />
      <main className={`shell-main shell-main-${route.name}`}>{content}</main>
    </SessionContext.Provider>
  );
}
