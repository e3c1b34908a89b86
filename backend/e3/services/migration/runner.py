"""Carry out a recorded migration, step by step, each step persisted before and after (paper §3.4).

Steps of a stateful instance (docs/orchestrator.md, "Migration protocol"):
  push               DeployInstance on the target with e3.await_state=1: the binary and config are there,
                     its port is not open yet;
  open_transfer      ImportState on the target: it listens for the state on the migration's TCP port;
  stop_and_transfer  ExportState on the source, issued with the two above: it connects to the importer
                     (retrying until it listens), then stops serving (in-flight requests answered first),
                     cleans up its sockets, sends the reliable-collection state; the target loads it and
                     starts serving; the ACK is the source's confirmation. The point of no return: from
                     here the instance row says "on the target";
  update_routes      every agent-run node gets the route table pointing at the target;
  cleanup_source     RemoveInstance of the stopped copy on the source.
A stateless instance has nothing to transfer: push (serving at once), update_routes (the point of no return),
cleanup_source.
Never two primaries (docs/agents.md): the target copy is deployed and imports at the instance's next epoch; an
ExportState whose importer's answer was lost is NACKed `transfer_unconfirmed` with the source fenced (not
serving). Then confirm_transfer (ConfirmImport on the target: it closes its transfer and says whether it serves)
decides: imported, the move goes on (its epoch is the instance's now, the fenced source is cleaned up); not
imported (or the target is down), resume_source (ResumeInstance on the source) and the move is rolled back. A
target that does not answer leaves the source fenced and the migration failed `unconfirmed` (no copy serves
rather than two).
A seed (failover: a new backup, its row already on the target and `seeding`) is a copy, not a move: push
(role backup, awaiting state), open_transfer, copy_state (ExportState in copy mode on the primary: it pauses,
sends its state, switches its backups to the shard's current ones plus this one, serves again; the point of
no return), update_routes (the new backup's port is routed).

Crash safety: a step's command versions are stored with the step, so a resumed run waits for the outcome of
what was already issued instead of issuing it again. Before the point of no return a failed step is rolled
back (the target copy removed; an ExportState that failed has already resumed the source, by the agent's
contract); after it the run only goes forward. An ExportState that gets no answer while its source is up is
waited for (never rolled back blindly: the state may already be on the target); if the source goes down
the migration stops as `failed` and failover takes over. One run per migration at a time: a Postgres
advisory lock on a connection of its own, released if the worker dies.
"""

import logging
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone

from sqlalchemy import func, select, tuple_
from sqlalchemy.orm import Session
from sqlalchemy.orm.attributes import flag_modified

from e3.core.db import get_engine
from e3.models import ComputeNode, Instance, Migration, NodeCommand
from e3.models.migration import ACTIVE_MIGRATION_STATES
from e3.services import commands, events
from e3.services.migration.records import TRANSFER_PORTS

log = logging.getLogger(__name__)

# Steps in rounds: the steps of a round are issued together (one commit) and waited for in order, each with its
# own record and timing. Together only where nothing waits on the other's outcome: the target applies its
# commands in version order (DeployInstance, then ImportState); the source's ExportState goes out with them,
# because its agent connects to the importer before it stops serving and retries a refused connect until the
# importer listens (SX_LISTEN_WAIT_MS, 5 s; then a NACK, the source never stopped). After a stateful transfer
# the source copy is stopped and its state is on the target, so removing it need not wait for the routes. A
# stateless move removes its serving source only once every node routes to the target (make before break).
STATEFUL_ROUNDS = (("push", "open_transfer", "stop_and_transfer"), ("update_routes", "cleanup_source"))
STATELESS_ROUNDS = (("push",), ("update_routes",), ("cleanup_source",))
SEED_ROUNDS = (("push", "open_transfer", "copy_state"), ("update_routes",))
STATEFUL_STEPS = tuple(n for r in STATEFUL_ROUNDS for n in r)
STATELESS_STEPS = tuple(n for r in STATELESS_ROUNDS for n in r)
SEED_STEPS = tuple(n for r in SEED_ROUNDS for n in r)
TRANSFER_STEPS = ("stop_and_transfer", "copy_state")
AWAIT_STATE_KEY = "e3.await_state"
STEP_TIMEOUT_S = 20.0  # a command unanswered this long (its node up) fails the step
EXPORT_TIMEOUT_S = 120.0  # stop_and_transfer: the agent bounds its own wait; after this the migration fails
POLL_S = 0.01
# a transfer's failures that leave nothing to roll back: its outcome unknown, its source down, or fenced
NOT_ROLLED_BACK = ("export_unanswered", "source_down", "unconfirmed")
ADVISORY_LOCK_SPACE = 0x45334D47  # "E3MG": the advisory lock key's high half


class StepFailed(Exception):
    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code, self.message = code, message
        self.entry: dict | None = None  # the step that could not be issued (issue_round)


@dataclass
class Outcome:
    node_id: uuid.UUID
    version: int
    state: str  # pending | acked | nacked
    error: dict | None
    node_up: bool = True
    node_down: bool = False  # marked down (not merely suspect)


def _now() -> datetime:
    return datetime.now(timezone.utc)


def _elapsed_ms(started: datetime) -> float:
    return round((_now() - started).total_seconds() * 1000, 1)


def _lock_key(migration_id: uuid.UUID) -> int:
    return (ADVISORY_LOCK_SPACE << 32 | (migration_id.int & 0xFFFFFFFF)) - (1 << 63)


class _Run:
    def __init__(self, session: Session, migration: Migration, sleep: Callable[[float], None] = time.sleep):
        self.s, self.m, self.sleep = session, migration, sleep
        self.instance = session.get(Instance, migration.instance_id)
        self.seed = migration.kind == "seed"
        self.source = session.get(ComputeNode, migration.source_node_id)
        self.target = session.get(ComputeNode, migration.target_node_id)
        self.application = events.application_of(session, instance_id=migration.instance_id)

    # --- the record -----------------------------------------------------------------------------
    def _entry(self, name: str) -> dict | None:
        """A copy of the step's entry: an entry changed in place would compare equal to the loaded list (the
        session does not expire on commit) and its change would never be written."""
        return next((dict(e) for e in self.m.steps if e["name"] == name), None)

    def _save_entry(self, entry: dict, commit: bool = True) -> None:
        """Store a step's entry, in its place (steps keep their order when a round's entries are saved twice)."""
        steps = list(self.m.steps)
        at = next((i for i, e in enumerate(steps) if e["name"] == entry["name"]), None)
        if at is None:
            steps.append(entry)
        else:
            steps[at] = entry
        self.m.steps = steps
        flag_modified(self.m, "steps")  # written even when equal to what the session last loaded
        # the step under way: the first of its round still waited for (a round's steps end in order)
        self.m.step = next((e["name"] for e in steps if e["state"] == "running"), entry["name"])
        if commit:
            self.s.commit()

    def _event(self, kind: str, **data) -> None:
        events.emit(self.s, kind, f"instance/{self.m.instance_id}", self.m.cluster_id, application=self.application,
                    migration_id=str(self.m.id), **data)

    def _finish(self, state: str, error: dict | None = None) -> None:
        self.m.state, self.m.error, self.m.finished_at = state, error, _now()
        if self.seed and error and self.instance.state == "seeding":  # the new backup never got its state
            self.instance.state, self.instance.error = "failed", error
        total_ms = round(sum(e.get("ms") or 0 for e in self.m.steps), 1)
        self._event(f"migration.{state}", migration_kind=self.m.kind, source=self.source.name,
                    target=self.target.name, total_ms=total_ms,
                    **({"error": error["message"], "code": error["code"]} if error else {}))
        self.s.commit()
        log.info("migration %s %s (%s -> %s)%s", self.m.id, state, self.source.name, self.target.name,
                 f": {error['message']}" if error else "")

    # --- commands and their outcomes -------------------------------------------------------------
    def _issue(self, node: ComputeNode, kind: str, payload: dict) -> dict:
        version = commands.issue(self.s, self.m.cluster_id, node.id, kind, payload, self.instance.id)
        return dict(node_id=str(node.id), version=version)

    def _outcomes(self, issued: list[dict]) -> list[Outcome]:
        """The issued commands' states, and whether each one's node is up, in one query."""
        keys = [(uuid.UUID(c["node_id"]), c["version"]) for c in issued]
        rows = {(n, v): (state, error, node_state) for n, v, state, error, node_state in self.s.execute(
            select(NodeCommand.node_id, NodeCommand.version, NodeCommand.state, NodeCommand.error, ComputeNode.state)
            .join(ComputeNode, ComputeNode.id == NodeCommand.node_id)
            .where(tuple_(NodeCommand.node_id, NodeCommand.version).in_(keys)))} if keys else {}
        out = []
        for node_id, version in keys:
            state, error, node_state = rows.get((node_id, version)) or (
                "nacked", {"code": "lost", "message": "the command is no longer stored"}, None)
            out.append(Outcome(node_id, version, state, error, node_state == "up", node_state == "down"))
        return out

    def _node_up(self, node_id: uuid.UUID) -> bool:
        return self.s.scalar(select(ComputeNode.state).where(ComputeNode.id == node_id)) == "up"

    def _wait(self, issued: list[dict], timeout_s: float, *, ok_codes: tuple[str, ...] = (),
              until_down: bool = False) -> list[Outcome]:
        """Wait until every issued command is answered (a node that is not up is not waited for; with
        `until_down`, only one marked down is not). A NACK whose code is in `ok_codes` counts as done. Raises
        StepFailed on another NACK or on a timeout."""
        deadline = time.monotonic() + timeout_s
        while True:
            self.s.rollback()  # a fresh snapshot each round
            outcomes = self._outcomes(issued)
            for o in outcomes:
                if o.state == "nacked" and (o.error or {}).get("code") not in ok_codes:
                    err = o.error or {}
                    raise StepFailed(err.get("code", "nacked"), err.get("message", "the agent refused the command"))
            pending = [o for o in outcomes if o.state == "pending" and (not o.node_down if until_down else o.node_up)]
            if not pending:
                return outcomes
            if time.monotonic() > deadline:
                names = ", ".join(str(o.node_id) for o in pending)
                raise StepFailed("timeout", f"no answer from node(s) {names} within {timeout_s:g} s")
            self.sleep(POLL_S)

    # --- steps ---------------------------------------------------------------------------------
    def _issue_step(self, name: str) -> list[dict]:
        m, inst = self.m, self.instance
        if name == "push":
            if m.target_port is None:
                m.target_port = commands.free_port(self.s, self.target.address)
            keys = {AWAIT_STATE_KEY: "1"} if m.stateful else {}
            payload = commands.deploy_payload(self.s, inst, m.target_port, **keys)
            return [self._issue(self.target, "deploy_instance", {**payload, "epoch": self._target_epoch()})]
        if name == "open_transfer":
            if m.transfer_port is None:
                m.transfer_port = _free_transfer_port(self.s)
            return [self._issue(self.target, "import_state",
                                dict(instance_id=str(inst.id), source=self.source.control_address or "",
                                     listen_port=m.transfer_port, epoch=self._target_epoch()))]
        if name in TRANSFER_STEPS:
            host = self.target.control_address or self.target.address
            export = dict(instance_id=str(inst.id), destination=f"{host}:{m.transfer_port}", epoch=inst.epoch)
            if name == "copy_state":
                source = self.s.get(Instance, m.source_instance_id)
                export.update(instance_id=str(m.source_instance_id), keep_serving=True, backups=self._backups_after(),
                              epoch=source.epoch if source else 0)
            return [self._issue(self.source, "export_state", export)]
        if name == "confirm_transfer":
            return [self._issue(self.target, "confirm_import",
                                dict(instance_id=str(inst.id), epoch=self._target_epoch()))]
        if name == "resume_source":
            return [self._issue(self.source, "resume_instance", dict(instance_id=str(inst.id), epoch=inst.epoch))]
        if name == "update_routes":
            self._commit_move()
            return [dict(node_id=str(n), version=v) for n, v in commands.issue_routes(self.s, m.cluster_id).items()]
        if name == "cleanup_source":
            return [self._issue(self.source, "remove_instance", dict(instance_id=str(inst.id)))]
        if name == "undo_push":
            return [self._issue(self.target, "remove_instance", dict(instance_id=str(inst.id)))]
        raise ValueError(f"unknown step {name}")

    def _backups_after(self) -> str:
        """A seed's primary's backups once it is done: the shard's running backups and this one."""
        inst = self.instance
        rows = self.s.scalars(select(Instance.id).where(
            Instance.deployment_id == inst.deployment_id, Instance.dag_node == inst.dag_node,
            Instance.shard == inst.shard, Instance.role == "backup",
            (Instance.state == "running") | (Instance.id == inst.id)).order_by(Instance.replica))
        return ",".join(str(i) for i in rows)

    def _target_epoch(self) -> int:
        """The epoch the target copy serves at: a moved instance's next one (a seeded backup keeps its own)."""
        inst = self.instance
        return inst.epoch if self.seed or inst.node_id == self.target.id else inst.epoch + 1

    def _commit_move(self) -> None:
        """The instance row now says it runs on the target, serving on the target port (at the target's epoch)."""
        inst = self.instance
        if inst.node_id != self.target.id or inst.state == "seeding":
            inst.epoch = self._target_epoch()
            inst.node_id, inst.port, inst.state, inst.error = self.target.id, self.m.target_port, "running", None

    def _wait_step(self, name: str, issued: list[dict]) -> None:
        if name in TRANSFER_STEPS:
            self._wait_export(issued)
        elif name in ("cleanup_source", "undo_push"):  # the copy may be gone already (an agent that restarted)
            self._wait(issued, STEP_TIMEOUT_S, ok_codes=("unknown_instance",))
        elif name == "confirm_transfer":  # not_imported is an answer; so is a target gone (restarted, or down:
            # a suspect one may still serve, so it is waited for)
            self._wait(issued, STEP_TIMEOUT_S, ok_codes=("not_imported", "unknown_instance"), until_down=True)
        elif name == "resume_source":  # not_fenced: resumed already (a resumed run issuing it again)
            self._wait(issued, STEP_TIMEOUT_S, ok_codes=("not_fenced",))
        else:
            self._wait(issued, STEP_TIMEOUT_S)

    def _wait_export(self, issued: list[dict]) -> None:
        try:
            self._wait(issued, EXPORT_TIMEOUT_S)
        except StepFailed as exc:
            if exc.code == "transfer_unconfirmed":
                self._confirm_transfer(exc)
                return
            if exc.code != "timeout":
                raise
            raise StepFailed("export_unanswered", f"the source did not confirm the transfer within "
                                                  f"{EXPORT_TIMEOUT_S:g} s; nothing was undone") from None
        if not self._node_up(self.source.id) and self._outcomes(issued)[0].state == "pending":
            raise StepFailed("source_down", f"{self.source.name} went down during the transfer; "
                                            "failover takes over from the backups")
        self._commit_move()

    def _confirm_transfer(self, unconfirmed: StepFailed) -> None:
        """The missing third step of a move whose exporter lost the importer's answer (it is fenced): the target
        says whether it serves; if so the move stands, else the source serves again and the move fails (rolled
        back). Raises StepFailed when it does not go on; a target that does not answer leaves the source fenced."""
        try:
            self.run_step("confirm_transfer")
        except StepFailed as exc:
            raise StepFailed("unconfirmed", f"{unconfirmed.message}; the target did not say whether it serves "
                                            f"({exc.message}): the source stays fenced") from None
        answer = self._outcomes(self._entry("confirm_transfer")["commands"])[0]
        if answer.state == "acked":
            log.info("migration %s: the lost answer is confirmed by %s: moved", self.m.id, self.target.name)
            self._commit_move()
            return
        self.run_step("resume_source")
        raise StepFailed("transfer_failed", f"{unconfirmed.message}; the target does not serve it "
                                            f"({(answer.error or {}).get('message', 'its node is down')}): "
                                            f"the source serves again")

    def issue_round(self, names: tuple[str, ...], commit: bool = True) -> dict[str, dict]:
        """Issue the round's steps not issued yet, together: recorded with their commands in one transaction (a
        resumed run waits for these). Returns the entries of its steps not done yet."""
        entries = {}
        for name in names:
            entry = self._entry(name)
            if entry and entry["state"] == "done":
                continue
            if entry is None or not entry.get("commands"):
                entry = dict(name=name, state="running", started_at=_now().isoformat(), finished_at=None, ms=None,
                             commands=[], detail=None)
            entries[name] = entry
        fresh = [e for e in entries.values() if not e["commands"]]
        for entry in fresh:
            try:
                entry["commands"] = self._issue_step(entry["name"])
            except StepFailed as exc:  # the caller rolls back: nothing of the round is issued
                entry["commands"], exc.entry = [], entry
                raise
            # its commands, so the UI can tell the agents' answers (command.ack|nack) to this step apart
            self._event("migration.step", step=entry["name"], state="running", commands=entry["commands"])
            self._save_entry(entry, commit=False)
        if fresh and commit:
            self.s.commit()
        return entries

    def run_round(self, names: tuple[str, ...], last: bool = False) -> None:
        """Issue the round (what is not issued yet), then wait for each of its steps in order. A step that fails
        fails the round; the steps after it in the round are recorded failed too, not waited for. With `last`,
        the last step's end is left for the migration's end to commit (a resumed run waits for it again)."""
        try:
            entries = self.issue_round(names)
        except StepFailed as exc:
            self.s.rollback()
            self._step_failed(exc.entry, exc)
            raise
        for name, entry in entries.items():
            try:
                self._wait_step(name, entry["commands"])
            except StepFailed as exc:
                self.s.rollback()
                self._step_failed(entry, exc)
                later = list(entries)[list(entries).index(name) + 1:]
                for after in later:
                    if after in TRANSFER_STEPS and entries[after]["commands"]:
                        self._settle_transfer(entries[after])
                    else:
                        self._step_failed(entries[after], StepFailed("not_waited", f"{name} failed first"))
                raise
            self._step_done(entry, commit=not (last and name == names[-1]))

    def _step_done(self, entry: dict, commit: bool = True) -> None:
        entry.update(state="done", finished_at=_now().isoformat(),
                     ms=_elapsed_ms(datetime.fromisoformat(entry["started_at"])))
        self._event("migration.step", step=entry["name"], state="done", ms=entry["ms"])
        self._save_entry(entry, commit=commit)

    def _settle_transfer(self, entry: dict) -> None:
        """A step before the transfer in its round failed, but the ExportState is out: its outcome decides, never
        a guess (a step that merely went unanswered in time may have happened, and the state moved). Waited for
        as usual; recorded done (the move is committed, the run goes on) or failed (its agent serves again)."""
        try:
            self._wait_step(entry["name"], entry["commands"])
        except StepFailed as exc:
            self.s.rollback()
            self._step_failed(entry, exc)
            if exc.code in NOT_ROLLED_BACK:
                raise
            return
        log.warning("migration %s: a step before %s failed, yet the transfer went through: going on",
                    self.m.id, entry["name"])
        self._step_done(entry)

    def run_step(self, name: str) -> None:
        self.run_round((name,))

    def _step_failed(self, entry: dict, exc: StepFailed) -> None:
        entry.update(state="failed", finished_at=_now().isoformat(), detail=f"{exc.code}: {exc.message}",
                     ms=_elapsed_ms(datetime.fromisoformat(entry["started_at"])))
        self._event("migration.step", step=entry["name"], state="failed", error=exc.message)
        self._save_entry(entry)

    # --- the whole run --------------------------------------------------------------------------
    def rounds(self) -> tuple[tuple[str, ...], ...]:
        return SEED_ROUNDS if self.seed else STATEFUL_ROUNDS if self.m.stateful else STATELESS_ROUNDS

    def no_return_step(self) -> str:
        """The step that commits the change: the transfer (a stateful move, a seed), else the routes."""
        return "copy_state" if self.seed else "stop_and_transfer" if self.m.stateful else "update_routes"

    def _transfer_done_in(self, names: tuple[str, ...]) -> bool:
        return any((self._entry(n) or {}).get("state") == "done" for n in names if n in TRANSFER_STEPS)

    def past_no_return(self) -> bool:
        entry = self._entry(self.no_return_step())
        return bool(entry and (entry["state"] == "done" or (not self.m.stateful and entry.get("commands"))))

    def forward(self) -> None:
        if self.m.state == "pending":
            self.m.state = "running"
            self._event("migration.started", source=self.source.name, target=self.target.name,
                        stateful=self.m.stateful)
            self.s.commit()
        rounds = self.rounds()
        for names in rounds:
            try:
                self.run_round(names, last=names == rounds[-1])
            except StepFailed as exc:
                if self._transfer_done_in(names):  # see _settle_transfer
                    continue
                name = next((e["name"] for e in self.m.steps if e["name"] in names and e["state"] == "failed"),
                            names[0])
                if self.past_no_return() or exc.code in NOT_ROLLED_BACK:
                    if exc.code == "source_down":  # the backup is promoted: a target copy that has the state and
                        self._remove_target_copy()  # serves must not serve beside it
                    self._finish("failed", dict(code=exc.code, message=f"{name}: {exc.message}"))
                else:
                    self.roll_back(dict(code=exc.code, message=f"{name}: {exc.message}"))
                return
        self._finish("succeeded")

    def roll_back(self, error: dict) -> None:
        """Undo what is on the target (its copy); the source was never stopped, or was resumed by its agent."""
        if self.m.state != "rolling_back":
            self.m.state, self.m.error = "rolling_back", error
            self._event("migration.rolling_back", error=error["message"])
            self.s.commit()
        self._remove_target_copy()
        self._finish("rolled_back", self.m.error or error)

    def _remove_target_copy(self) -> None:
        if self._entry("push"):  # run_step skips it when already done
            try:
                self.run_step("undo_push")
            except StepFailed as exc:
                log.warning("migration %s: removing the target copy failed: %s", self.m.id, exc.message)


def begin(session: Session, migration_id: uuid.UUID) -> bool:
    """Issue a `pending` migration's first round in the caller's transaction, the one that records the migration,
    so its commands reach the agents at that commit instead of after the hand-over to a worker; the run (or a
    resumed one) waits for them as for any round issued before it started. Returns whether anything was issued
    (a round that cannot be issued now is left to the run, which fails it and rolls back)."""
    migration = session.get(Migration, migration_id)
    if migration is None or migration.state != "pending" or migration.steps:
        return False
    run = _Run(session, migration)
    # Not the transfer: a migration whose worker never comes is abandoned (the target copy removed), which is
    # safe only while no ExportState could be moving the state there.
    first = tuple(n for n in run.rounds()[0] if n not in TRANSFER_STEPS)
    try:
        with session.begin_nested():
            run.issue_round(first, commit=False)
    except StepFailed:
        session.expire(migration)
        return False
    return True


def abandon(session: Session, migration_id: uuid.UUID, error: dict) -> None:
    """A migration whose first round was issued but which no worker will run (the queue is unreachable): the
    target copy's removal is issued and the migration left `rolling_back`, for a worker to finish when one
    starts (tasks.migrations.resume_unfinished). The source never stopped: nothing else to undo."""
    migration = session.get(Migration, migration_id)
    run = _Run(session, migration)
    migration.state, migration.error = "rolling_back", error
    run._event("migration.rolling_back", error=error["message"])
    run.issue_round(("undo_push",), commit=False)


def _free_transfer_port(session: Session) -> int:
    taken = set(session.scalars(select(Migration.transfer_port).where(
        Migration.transfer_port.is_not(None), Migration.state.in_(ACTIVE_MIGRATION_STATES))))
    port = next((p for p in TRANSFER_PORTS if p not in taken), None)
    if port is None:
        raise StepFailed("no_transfer_port", f"every transfer port {TRANSFER_PORTS.start}-{TRANSFER_PORTS.stop - 1} "
                                             "is in use by a migration under way")
    return port


def run_migration(session: Session, migration_id: uuid.UUID, sleep: Callable[[float], None] = time.sleep) -> str:
    """Run (or resume) migration `migration_id` to its end; returns its final state. Another run holding
    the migration's lock makes this one return at once ("busy")."""
    with get_engine().connect() as lock_conn:
        key = _lock_key(migration_id)
        if not lock_conn.scalar(select(func.pg_try_advisory_lock(key))):
            return "busy"
        try:
            migration = session.get(Migration, migration_id)
            if migration is None:
                return "gone"
            run = _Run(session, migration, sleep)
            if migration.state in ("pending", "running"):
                run.forward()
            elif migration.state == "rolling_back":
                run.roll_back(migration.error or dict(code="resumed", message="rolled back after a restart"))
            return migration.state
        finally:
            lock_conn.scalar(select(func.pg_advisory_unlock(key)))


def unfinished(session: Session) -> list[uuid.UUID]:
    """Migrations a worker should resume: every one not at an end."""
    return list(session.scalars(select(Migration.id).where(Migration.state.in_(ACTIVE_MIGRATION_STATES))
                                .order_by(Migration.created_at)))
