"""Bearer tokens: random secrets shown once; only their SHA-256 is stored.

SHA-256 without salt is right here (unlike for passwords): a token carries 256 random bits,
so there is nothing to brute-force, and an unsalted hash allows an indexed lookup.
"""

import hashlib
import secrets
from dataclasses import dataclass

TOKEN_PREFIX = "e3_"
SCOPES = ("read", "write", "deploy", "admin", "agent")
# What each scope grants beyond itself. `admin` grants everything. `agent` (what an agent on a host or
# SmartNIC presents to the controller) grants nothing else, so a stolen agent token reads no API.
_IMPLIED = {"read": {"read"}, "write": {"write", "read"}, "deploy": {"deploy", "read"},
            "admin": set(SCOPES), "agent": {"agent"}}


def generate_token() -> str:
    return TOKEN_PREFIX + secrets.token_urlsafe(32)


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def effective_scopes(granted: list[str] | tuple[str, ...]) -> set[str]:
    out: set[str] = set()
    for scope in granted:
        out |= _IMPLIED.get(scope, set())
    return out


@dataclass(frozen=True)
class Actor:
    """Who is making a request: the token's id and name and what it may do."""

    token_id: object | None
    name: str
    scopes: frozenset[str]

    def can(self, scope: str) -> bool:
        return scope in self.scopes


SYSTEM = Actor(token_id=None, name="system", scopes=frozenset(SCOPES))
