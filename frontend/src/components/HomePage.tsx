import { useCounts } from "../hooks/useCounts";
import type { Session } from "../hooks/useSession";
import { useTemplates } from "../hooks/useTemplates";
import type { HealthState } from "../lib/health";
import { CountsPanel } from "./CountsPanel";
import { StatusPanel } from "./StatusPanel";
import { TemplatesList } from "./TemplatesList";
import { TokenBox } from "./TokenBox";

/** `#/`: API status and readiness, the token box, resource counts and the paper's templates. */
export function HomePage({ health, session }: { health: HealthState; session: Session }) {
  const signedIn = session.me !== null && session.status !== "refused";
  const counts = useCounts(signedIn, session.token, health.generation);
  const templates = useTemplates(signedIn, session.token, health.generation);

  return (
    <div className="grid">
      <StatusPanel health={health} />
      <TokenBox session={session} />
      <CountsPanel counts={counts} signedIn={signedIn} />
      <TemplatesList state={templates} />
    </div>
  );
}
