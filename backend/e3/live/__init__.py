"""The API's live fan-out to the UI (WebSocket, SSE, polling): the Redis channel's layout, one hub per
API process, the aggregation of heartbeats into what the dashboard shows, and following the event log."""
