"""The agents' side of the controller again, behind its compiled ingest front (E3_INGEST_FRONT, agents/e3-ingest),
which terminates the heartbeat streams itself: the same tests, imported from the modules that run them against the
Python controller alone, must pass unchanged. What the front must reproduce: the summary and its reasons (bad,
unknown, another agent's and out-of-order heartbeats, an oversized batch), rollups written before the summary, the
live state in Redis, membership from the heartbeats it takes, a revoked credential's streams ended, another
credential's node forbidden, the raw tail (kept and served by the front, to `read` tokens only: the controller
authorizes), the energy history and /metrics fed from its rollups."""

import pytest
from helpers import REPO_ROOT
from test_agent_identity import (  # noqa: F401
    agents,
    test_a_batch_naming_another_credentials_node_is_refused_and_only_that_heartbeat_counted_forbidden,
    test_issue19_item5_a_revoked_credential_is_refused_at_once_and_its_open_streams_end,
    test_issue19_item5_another_credential_cannot_register_heartbeat_read_commands_or_ack_for_a_node)
from test_agent_service import (  # noqa: F401
    test_a_controller_behind_its_agents_counts_silence_from_the_heartbeats_it_takes,
    test_a_replayed_or_older_heartbeat_is_refused_as_out_of_order_and_counted,
    test_a_silent_node_turns_suspect_then_down_and_back_up,
    test_bad_heartbeats_are_refused_with_reasons_and_good_ones_in_the_same_stream_kept,
    test_heartbeats_reach_postgres_and_the_latest_state_reaches_redis, test_unauthenticated_heartbeat_stream_is_refused)
from test_energy_rollups import (  # noqa: F401
    placed,
    test_a_late_heartbeat_is_added_to_its_steps_stored_row,
    test_stored_rows_hold_the_heartbeats_energy_attributed_to_labelled_instances)
from test_raw_tail import (  # noqa: F401
    test_the_api_shows_the_controllers_tail_beside_the_stored_steps,
    test_the_controller_hands_its_raw_tail_to_read_tokens_only)

INGEST = REPO_ROOT / "build/agents/e3-ingest/e3-ingest"


@pytest.fixture
def controller(start_controller, monkeypatch):
    """The test settings' controller, behind its front."""
    if not INGEST.is_file():
        pytest.fail(f"{INGEST} is missing: `make test` builds it (make agents)")
    monkeypatch.setenv("E3_INGEST_BIN", str(INGEST))
    running = start_controller(ingest_front=True)
    yield running
    running.stop()
