"""The generated messages and stubs, generated first if needed (see codegen.py)."""

from e3.rpc.codegen import ensure_generated

ensure_generated()

from e3.rpc.gen.e3.agent.v1 import agent_pb2, agent_pb2_grpc  # noqa: E402
from e3.rpc.gen.e3.internal.v1 import front_pb2, front_pb2_grpc  # noqa: E402
from e3.rpc.gen.e3.internal.v1 import telemetry_pb2, telemetry_pb2_grpc  # noqa: E402

__all__ = ["agent_pb2", "agent_pb2_grpc", "front_pb2", "front_pb2_grpc", "telemetry_pb2", "telemetry_pb2_grpc"]
