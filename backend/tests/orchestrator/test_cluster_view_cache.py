"""The orchestrator's kept cluster views: read once, reused while fresh, refreshed in the background while
stale, read again past that or once invalidated; a read started before an invalidation is not kept."""

import uuid

import pytest

from e3.controller.cluster_view_cache import ClusterViewCache

CLUSTER = uuid.uuid4()


class _Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


@pytest.fixture
def cache():
    clock, built, background = _Clock(), [], []

    def build(session, cluster_id):
        built.append((clock.now, cluster_id))
        return object()  # stands for a ClusterView: the cache never looks inside

    views = ClusterViewCache(build, fresh_s=1.0, stale_s=10.0, clock=clock, in_background=background.append)
    return views, clock, built, background


def test_a_fresh_view_is_reused_and_its_age_told(cache):
    views, clock, built, background = cache
    first, age = views.get(None, CLUSTER)
    assert age == 0.0 and len(built) == 1
    clock.now += 0.4
    again, age = views.get(None, CLUSTER)
    assert again is first and age == pytest.approx(0.4) and len(built) == 1 and not background


def test_a_stale_view_is_used_while_one_refresh_reads_the_next(cache, monkeypatch):
    views, clock, built, background = cache
    monkeypatch.setattr("e3.controller.cluster_view_cache.in_session", lambda fn, *args: fn(None, *args))
    first, _ = views.get(None, CLUSTER)
    clock.now += 3.0
    used, age = views.get(None, CLUSTER)
    views.get(None, CLUSTER)
    assert used is first and age == pytest.approx(3.0) and len(background) == 1  # one refresh at a time
    background.pop()()  # the refresh runs
    refreshed, age = views.get(None, CLUSTER)
    assert refreshed is not first and age == 0.0 and views.reads == 2
    clock.now += 3.0
    views.get(None, CLUSTER)
    assert len(background) == 1  # the refresh done, the next one may start


def test_a_view_past_its_stale_age_is_read_first(cache):
    views, clock, built, background = cache
    first, _ = views.get(None, CLUSTER)
    clock.now += 10.0
    second, age = views.get(None, CLUSTER)
    assert second is not first and age == 0.0 and len(built) == 2 and not background


def test_an_invalidated_view_is_read_again(cache):
    views, clock, built, background = cache
    first, _ = views.get(None, CLUSTER)
    views.invalidate(CLUSTER)
    second, age = views.get(None, CLUSTER)
    assert second is not first and age == 0.0 and len(built) == 2


def test_a_read_under_way_when_the_view_is_invalidated_is_not_kept():
    clock, during = _Clock(), []

    def build(session, cluster_id):
        for hook in during:
            hook()  # e.g. a node goes down while the view is being read
        return object()

    views = ClusterViewCache(build, clock=clock, in_background=lambda work: None)
    during.append(views.invalidate)
    first, _ = views.get(None, CLUSTER)
    during.clear()
    second, _ = views.get(None, CLUSTER)
    assert second is not first and views.reads == 2  # the first read was used once, never kept


def test_the_ages_must_be_in_order():
    with pytest.raises(ValueError, match="fresh age"):
        ClusterViewCache(lambda s, c: None, fresh_s=5, stale_s=1)


def test_a_slow_read_is_refreshed_ten_times_as_rarely_and_kept_twice_as_long():
    clock, background = _Clock(), []

    def build(session, cluster_id):
        clock.now += 2.0  # a read that takes 2 s, as at 1,000 servers under heartbeat load
        return object()

    views = ClusterViewCache(build, fresh_s=1.0, stale_s=10.0, clock=clock, in_background=background.append)
    first, _ = views.get(None, CLUSTER)
    assert views.fresh_age(CLUSTER) == pytest.approx(20.0) and views.stale_age(CLUSTER) == pytest.approx(40.0)
    clock.now += 15.0  # 17 s old (its age counts from the read's start): past fresh_s and stale_s, not ten reads
    kept, age = views.kept(CLUSTER)
    assert kept is first and age == pytest.approx(17.0) and not background
    clock.now += 10.0
    assert views.kept(CLUSTER)[0] is first and len(background) == 1  # refreshed in the background
    clock.now += 20.0
    assert views.kept(CLUSTER) is None  # 47 s old: read first


def test_warm_reads_in_the_background_what_has_no_view_or_no_fresh_one(cache, monkeypatch):
    views, clock, built, background = cache
    monkeypatch.setattr("e3.controller.cluster_view_cache.in_session", lambda fn, *args: fn(None, *args))
    other = uuid.uuid4()
    views.warm([CLUSTER, other])
    views.warm([CLUSTER])  # its read is under way: not a second one
    assert len(background) == 2 and not built
    for work in background:
        work()
    background.clear()
    assert views.kept(CLUSTER)[1] == 0.0 and views.kept(other)[1] == 0.0 and views.reads == 2
    clock.now += 0.5
    views.warm([CLUSTER, other])
    assert not background  # both fresh
    clock.now += 1.0
    views.warm([CLUSTER])
    assert len(background) == 1
