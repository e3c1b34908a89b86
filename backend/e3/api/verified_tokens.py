"""Bearer tokens this API process verified a moment ago, so that a client's stream of requests costs one token
lookup every TRUST_S rather than one per request (a query and a commit: docs/reliability.md, "API under
concurrency and load").

A verified `Authorization` value is trusted for TRUST_S without asking the database again. A revocation made
through this process forgets the token at once (routers/tokens.py: the next request is refused); one made
through another API process, the CLI or SQL, and an expiry, are seen within TRUST_S (so is a request of this
process that checked the token just before the revocation committed): the same bound as for open streams
(api/stream_revocation.py), well within the promised second. Only what authenticated is kept, by the SHA-256 of
the header (never the secret itself), and at most MAX_ENTRIES of them.
"""

import time

from e3.core.security import Actor, hash_token

TRUST_S = 0.5
MAX_ENTRIES = 4096


class VerifiedTokens:
    """Authorization header -> the actor it authenticated as, for trust_s. Used from the event loop and the
    thread pool alike: each operation is one dictionary step (atomic under the interpreter lock)."""

    def __init__(self, trust_s: float = TRUST_S, max_entries: int = MAX_ENTRIES, clock=time.monotonic):
        self._trust_s, self._max_entries, self._clock = trust_s, max_entries, clock
        self._entries: dict[str, tuple[Actor, float]] = {}

    def recall(self, authorization: str | None) -> Actor | None:
        """The actor `authorization` authenticated as less than trust_s ago, else None (check it again)."""
        if not authorization:
            return None
        entry = self._entries.get(hash_token(authorization))
        if entry is None or entry[1] <= self._clock():
            return None
        return entry[0]

    def remember(self, authorization: str, actor: Actor) -> None:
        """`authorization` has just authenticated as `actor`."""
        now = self._clock()
        if len(self._entries) >= self._max_entries:
            self._entries = {k: v for k, v in list(self._entries.items()) if v[1] > now}
            if len(self._entries) >= self._max_entries:
                self._entries = {}
        self._entries[hash_token(authorization)] = (actor, now + self._trust_s)

    def forget(self, token_id) -> None:
        """Trust nothing more of the token `token_id` (revoked here): its next request is checked again."""
        self._entries = {k: v for k, v in list(self._entries.items()) if v[0].token_id != token_id}


verified_tokens = VerifiedTokens()
