"""The Celery application: Redis as broker and result store, late acks, JSON only."""

from celery import Celery

from e3.core.config import get_settings


def make_celery() -> Celery:
    url = get_settings().redis_url or "redis://127.0.0.1:6379/0"
    app = Celery("e3", broker=url, backend=url, include=["e3.tasks.clusters", "e3.tasks.deployments",
                                                                "e3.tasks.migrations", "e3.tasks.reaper"])
    app.conf.update(
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        worker_prefetch_multiplier=1,
        task_serializer="json",
        accept_content=["json"],
        result_serializer="json",
        result_expires=24 * 3600,
        broker_connection_retry_on_startup=True,
        worker_hijack_root_logger=False,
    )
    return app


celery_app = make_celery()
