import { useCounts } from "../hooks/useCounts";
import { useHealth } from "../hooks/useHealth";
import { useTemplates } from "../hooks/useTemplates";
import { useToken } from "../hooks/useToken";
import { ConnectionBanner } from "./ConnectionBanner";
import { CountsPanel } from "./CountsPanel";
import { StatusPanel } from "./StatusPanel";
import { TemplatesList } from "./TemplatesList";
import { TokenBox } from "./TokenBox";

export function App() {
  const health = useHealth();
  const auth = useToken(health.generation);
  const counts = useCounts(auth.token, health.generation);
  const templates = useTemplates(auth.token, health.generation);

  return (
    <>
      {health.connection === "lost" && <ConnectionBanner failedAttempts={health.failedAttempts} />}
      <header className="page-header">
        <h1>E3 control plane</h1>
        <a href="/docs">API docs</a>
      </header>
      <main className="grid">
        <StatusPanel health={health} />
        <TokenBox auth={auth} authError={counts.authError} />
        <CountsPanel counts={counts} signedIn={auth.token !== null} />
        <TemplatesList state={templates} />
      </main>
    </>
  );
}
