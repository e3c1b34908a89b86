"""gRPC: the agent<->controller contract (proto/e3/agent/v1) served by `e3 controller`.

Servicers here are thin adapters over services.agents; generated code lives only in gen/.
"""
