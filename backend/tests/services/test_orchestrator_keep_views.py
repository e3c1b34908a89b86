"""The orchestrator keeps read the views of the clusters whose SmartNICs its controller runs (hosts alone need none;
SmartNICs down, or only watched for the leader, neither), unless it judges nothing (mode `off`), so that a first
decision does not wait for a read."""

import uuid
from types import SimpleNamespace

from e3.controller.cluster_view_cache import ClusterViewCache
from e3.controller.orchestrator import DataplaneOrchestrator


def test_the_views_of_clusters_with_smartnics_are_read_ahead_unless_mode_is_off(monkeypatch):
    monkeypatch.setattr("e3.controller.cluster_view_cache.in_session", lambda fn, *args: fn(None, *args))
    started = []
    views = ClusterViewCache(lambda session, cluster_id: object(), in_background=started.append)
    orchestrator = DataplaneOrchestrator("observe", views=views)
    with_nics, hosts_only = uuid.uuid4(), uuid.uuid4()
    down, watched = uuid.uuid4(), uuid.uuid4()
    nodes = [SimpleNamespace(cluster_id=with_nics, kind="smartnic", state="up", heard=True),
             SimpleNamespace(cluster_id=with_nics, kind="host", state="up", heard=True),
             SimpleNamespace(cluster_id=hosts_only, kind="host", state="up", heard=True),
             SimpleNamespace(cluster_id=down, kind="smartnic", state="down", heard=True),  # its NICs all down
             SimpleNamespace(cluster_id=watched, kind="smartnic", state="up", heard=False)]  # an orphan, watched
    orchestrator.mode = "off"
    orchestrator.keep_views(nodes)
    assert not started
    orchestrator.mode = "observe"
    orchestrator.keep_views(nodes)
    orchestrator.keep_views(nodes)  # its read is under way
    assert len(started) == 1
    started.pop()()  # the read runs
    assert views.kept(with_nics) is not None and views.reads == 1
    assert views.kept(hosts_only) is None and views.kept(down) is None and views.kept(watched) is None
