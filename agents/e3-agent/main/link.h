/* SPDX-License-Identifier: Apache-2.0 */
/*
 * link: the agent's connection to the controller (agent.proto's "life of an agent"):
 * Register, StreamHeartbeats, StreamCommands + AckCommand, and reconnection. It is the only
 * module that calls e3rpc; the engine and the instances never notice the controller coming and
 * going.
 *
 * link_run loops until link_stop: create a client, Register (same agent_id every time), open the
 * heartbeat stream, deliver ACKs still owed, open the command stream after the highest version
 * handled, then apply + ACK commands as they come. Any failed call or stream error closes both
 * streams and starts over, one log line per attempt. With one controller address: after a backoff
 * (100 ms doubling to 5 s, jittered). With a list (ctlist.h): at the preferred address first,
 * then the next ones, each Register with a LINK_LIST_REGISTER_DEADLINE_MS deadline and 0 to
 * CTL_JITTER_MS between addresses; the backoff only once the whole list failed in a row. The heartbeat timer thread feeds the stream through link_transport; while no stream
 * is open its batches are dropped (counted by the heartbeat module).
 */
#ifndef E3AGENT_LINK_H
#define E3AGENT_LINK_H

#include <stdint.h>

#include "commands.h"
#include "ctlist.h"
#include "e3rpc.h"
#include "heartbeat.h"

typedef struct link_config {
    const ctl_list *controllers;  /* the controllers' addresses (copied) */
    const char *token;            /* bearer token */
    const char *tls_ca_pem;       /* PEM certificates trusted for the controller; NULL: plaintext */
    const char *agent_id;         /* this process's identity */
    e3rpc_identity identity;      /* the node it registers */
    uint32_t heartbeat_ms;        /* 0: the period Register answers */
    const char *power_source;     /* "rapl" / "model", for the registered line */
    cmd_state *cmds;              /* where commands are applied (outlives the link) */
} link_config;

typedef struct agent_link agent_link; /* opaque */

/* Called once, after the first successful Register, with the node id and the period to use;
 * returns 0 to go on, -1 to give up (link_run then returns -1). */
typedef int (*link_registered_fn)(void *ctx, const char *node_id, uint32_t period_ms);

/* A link (strings are copied). NULL when memory runs out. */
agent_link *link_new(const link_config *cfg);

/* The hb_transport sending batches on the current heartbeat stream. */
hb_transport link_transport(agent_link *l);

/* Run until link_stop (returns 0) or until `on_first` gives up (returns -1). Main thread. */
int link_run(agent_link *l, link_registered_fn on_first, void *ctx);

/* Make link_run return soon: cancels the command stream, interrupts a backoff. Any thread. */
void link_stop(agent_link *l);

/* After link_run returned and the heartbeat agent stopped: half-close the heartbeat stream and
 * log the controller's summary, close the command stream and the client. */
void link_finish(agent_link *l);

/* Free the link (link_finish first). NULL is fine. */
void link_free(agent_link *l);

#endif
