"""The controller's gRPC port with TLS (E3_CONTROLLER_TLS_CERT/KEY): agents register over TLS and a plaintext
client gets nothing; without TLS, listening beyond loopback is logged as a warning."""

import asyncio
import logging
import uuid

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from helpers import agent_auth, self_signed_certificate

from e3.rpc.pb import agent_pb2, agent_pb2_grpc


@pytest.fixture
def certificate(tmp_path):
    """A self-signed certificate for 127.0.0.1 and its key (PEM files)."""
    return self_signed_certificate(tmp_path)


def test_issue19_item5_agents_register_over_tls_and_plaintext_gets_nothing(start_controller, certificate, lab,
                                                                           agent_token):
    cert, key = certificate
    running = start_controller(controller_tls_cert=cert, controller_tls_key=key)
    try:
        target = f"127.0.0.1:{running.port}"
        with grpc.secure_channel(target, grpc.ssl_channel_credentials(cert.read_bytes())) as channel:
            node_id = agent_pb2_grpc.AgentServiceStub(channel).Register(agent_pb2.RegisterRequest(
                agent_id=str(uuid.uuid4()), node=agent_pb2.NodeIdentity(name=lab[0]["name"], cluster_name="lab")),
                metadata=agent_auth(agent_token), timeout=10).node_id
            assert node_id == lab[0]["id"]
        with grpc.insecure_channel(target) as channel, pytest.raises(grpc.RpcError) as err:
            health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=5)
        assert err.value.code() == grpc.StatusCode.UNAVAILABLE
    finally:
        running.stop()


def test_issue19_item5_plaintext_beyond_loopback_is_warned_about(backing_services, caplog):
    from e3.core.config import get_settings
    from e3.rpc.server import Controller

    async def start_and_stop(host):
        controller = Controller(get_settings(), host, 0)
        await controller.start()
        await controller.stop(0.1)

    with caplog.at_level(logging.WARNING, logger="e3.rpc.server"):
        asyncio.run(start_and_stop("127.0.0.1"))
        assert not [r for r in caplog.records if "without TLS" in r.getMessage()]
        asyncio.run(start_and_stop("0.0.0.0"))
    assert [r for r in caplog.records if "listening on 0.0.0.0 without TLS" in r.getMessage()]


def test_issue19_item5_a_certificate_without_its_key_is_refused_at_start_up(certificate):
    from pydantic import ValidationError

    from e3.core.config import Settings

    with pytest.raises(ValidationError, match="E3_CONTROLLER_TLS_KEY"):
        Settings(E3_CONTROLLER_TLS_CERT=str(certificate[0]))
