"""The controller process (`e3 controller`): its long-lived asyncio parts (agent hub, heartbeat intake and
writer, live publishing, command streams, the data-plane orchestrator loop)."""
