"""Agent credentials: the token an agent presents to the controller, and the nodes it may run.

An agent credential is an API token with the `agent` scope. Bound (api_tokens.cluster_id, .servers), it may
register only the nodes of that cluster, or of those servers of it; unbound, any node. Either way a node
registered under one credential is that credential's (compute_nodes.agent_token_id): another is refused
until the first is revoked or expires. docs/security.md ("Agent identity") is the user's side of this.
"""

import uuid
from dataclasses import dataclass

from sqlalchemy.orm import Session

from e3.models import ApiToken
from e3.services import tokens
from e3.services.agents import AGENT_SCOPE


@dataclass(frozen=True)
class AgentCredential:
    token_id: uuid.UUID
    name: str
    cluster_id: uuid.UUID | None  # None: not bound to a cluster
    servers: frozenset[str] | None  # None: every server of its cluster

    def may_run(self, cluster_id: uuid.UUID, server: str) -> bool:
        """True if this credential's binding covers a node of `server` in cluster `cluster_id`."""
        if self.cluster_id is None:
            return True
        return self.cluster_id == cluster_id and (self.servers is None or server in self.servers)


def authorize(session: Session, authorization: str | None, how_to_send: str) -> AgentCredential:
    """The credential of an agent's `Bearer <token>`: Unauthorized / Forbidden as tokens.authorize_bearer."""
    actor = tokens.authorize_bearer(session, AGENT_SCOPE, authorization=authorization, how_to_send=how_to_send)
    row = session.get(ApiToken, actor.token_id)  # already loaded by authorize_bearer: no second query
    return AgentCredential(row.id, row.name, row.cluster_id,
                           frozenset(row.servers) if row.servers is not None else None)
