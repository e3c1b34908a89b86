/* SPDX-License-Identifier: Apache-2.0 */
/* nic_cli and calibration: e3-nic's own options are taken and the rest passed to the agent parser
 * with a LiquidIO's defaults; bad values are refused naming the option; the EAL arguments carry a
 * vdev per port; Table 1 pacing slows top_ranker, bayes, sql and api_gateway and not ipsec or
 * kvs, and power uses the SmartNIC active watts. */
#include <string.h>

#include "calibration.h"
#include "check.h"
#include "cli.h"
#include "nic_cli.h"

static int has_pair(char **argv, int argc, const char *a, const char *b) {
    for (int i = 0; i + 1 < argc; i++)
        if (strcmp(argv[i], a) == 0 && strcmp(argv[i + 1], b) == 0) return 1;
    return 0;
}

static int refused(const char *a1, const char *a2, const char *word) {
    static nic_opts o;
    char err[NIC_ERRBUF_LEN] = "";
    char *argv[] = {"e3-nic", (char *)a1, (char *)a2, NULL};
    int argc = a2 ? 3 : 2;
    return nic_cli_parse(argc, argv, &o, err) == NIC_ERR && strstr(err, word) != NULL;
}

int main(void) {
    static nic_opts o;
    char err[NIC_ERRBUF_LEN];
    char *argv[] = {"e3-nic", "--wire", "p0", "--wire=p1", "--gateway", "02:e3:01:01:00:00", "--memif",
                    "/run/e3/c/s1-nic0.sock", "--host-address", "10.3.1.1", "--cluster", "c", "--node", "s1/nic0",
                    "--address", "10.3.1.10", "--cores", "6", "--poll", "busy", "--file-prefix", "e3-c-s1-nic0", NULL};
    CHECK_EQ_INT(nic_cli_parse(22, argv, &o, err), NIC_OK);
    CHECK_EQ_INT(o.n_wire, 2);
    CHECK(strcmp(o.wires[1], "p1") == 0);
    CHECK_EQ_INT(o.n_gateways, 1);
    CHECK_EQ_INT(o.cores, 6);
    CHECK_EQ_INT(o.busy_poll, 1);
    CHECK(has_pair(o.agent_argv, o.agent_argc, "--kind", "smartnic"));
    CHECK(has_pair(o.agent_argv, o.agent_argc, "--workers", "6"));
    CHECK(has_pair(o.agent_argv, o.agent_argc, "--cpu-source", "engine"));
    CHECK(has_pair(o.agent_argv, o.agent_argc, "--address", "10.3.1.10"));
    cli_opts agent;
    char aerr[CLI_ERRBUF_LEN];
    CHECK_EQ_INT(cli_parse(o.agent_argc, o.agent_argv, &agent, aerr), CLI_OK);
    CHECK(agent.kind == E3RPC_NODE_SMARTNIC);
    CHECK_EQ_INT(agent.workers, 6);
    CHECK(agent.idle_w == NIC_DEFAULT_IDLE_W);
    /* the model's span: idle .. idle + Table 1's highest SmartNIC active watts (not a server's peak) */
    CHECK(agent.peak_w > agent.idle_w && agent.peak_w - agent.idle_w < nic_max_active_watts() + 0.1);
    CHECK(strcmp(agent.node, "s1/nic0") == 0);

    char *eal[NIC_MAX_ARGS];
    int n = 0;
    CHECK_EQ_INT(nic_eal_argv(&o, 2, eal, NIC_MAX_ARGS, &n, err), NIC_OK);
    CHECK(has_pair(eal, n, "--vdev", "net_af_packet0,iface=p0"));
    CHECK(has_pair(eal, n, "--vdev", "net_af_packet1,iface=p1"));
    CHECK(has_pair(eal, n, "--vdev", "net_memif0,role=server,socket=/run/e3/c/s1-nic0.sock,socket-abstract=no"));
    CHECK(has_pair(eal, n, "--file-prefix", "e3-c-s1-nic0"));
    CHECK(has_pair(eal, n, "--lcores", "(0-1)@(0-1)"));
    CHECK(has_pair(eal, n, "-m", "256"));
    CHECK(has_pair(eal, n, "--no-huge", "--no-pci"));

    /* a real port by PCI address beside a veth: "-a" it, keep hugepages and the PCI bus */
    char *argv_pci[] = {"e3-nic", "--wire", "3B:00.1", "--wire", "veth9", "--cluster", "c", "--node", "s/nic0", NULL};
    CHECK_EQ_INT(nic_cli_parse(9, argv_pci, &o, err), NIC_OK);
    CHECK(o.wire_pci[0] && !o.wire_pci[1] && nic_uses_pci(&o));
    CHECK(strcmp(o.wire_ports[0], "0000:3b:00.1") == 0);   /* DPDK's name of the device */
    CHECK(strcmp(o.wire_ports[1], "net_af_packet1") == 0);
    CHECK_EQ_INT(nic_eal_argv(&o, 2, eal, NIC_MAX_ARGS, &n, err), NIC_OK);
    CHECK(has_pair(eal, n, "-a", "0000:3b:00.1"));
    CHECK(has_pair(eal, n, "--vdev", "net_af_packet1,iface=veth9"));
    for (int i = 0; i < n; i++) CHECK(strcmp(eal[i], "--no-pci") != 0 && strcmp(eal[i], "--no-huge") != 0);
    char pci[NIC_PORT_NAME_LEN];
    CHECK(nic_pci_address("0001:af:1f.7", pci, sizeof(pci)) && strcmp(pci, "0001:af:1f.7") == 0);
    CHECK(!nic_pci_address("af:20.0", pci, sizeof(pci)));  /* device 0x20 > 0x1f */
    CHECK(!nic_pci_address("3b:00.8", pci, sizeof(pci)));  /* function 8 > 7 */
    CHECK(!nic_pci_address("3b:00.0x", pci, sizeof(pci)));
    CHECK(!nic_pci_address("eth0", pci, sizeof(pci)));
    CHECK(!nic_pci_address("e3-s1-n0", pci, sizeof(pci)));

    /* an agent option given explicitly wins over the NIC default */
    char *argv2[] = {"e3-nic", "--wire", "p0", "--workers", "3", "--cluster", "c", "--node", "s1/nic0", NULL};
    CHECK_EQ_INT(nic_cli_parse(9, argv2, &o, err), NIC_OK);
    CHECK(has_pair(o.agent_argv, o.agent_argc, "--workers", "3"));
    CHECK(!has_pair(o.agent_argv, o.agent_argc, "--workers", "12"));
    char *argv_idle[] = {"e3-nic", "--wire", "p0", "--power-idle-w=20", "--cluster", "c", "--node", "s1/nic0", NULL};
    CHECK_EQ_INT(nic_cli_parse(8, argv_idle, &o, err), NIC_OK);
    CHECK_EQ_INT(cli_parse(o.agent_argc, o.agent_argv, &agent, aerr), CLI_OK);
    CHECK(agent.idle_w == 20.0 && agent.peak_w > 20.0 + nic_max_active_watts() - 0.1);

    CHECK(refused("--cluster", "c", "--wire"));               /* no port */
    CHECK(refused("--wire", "p0,iface=x", "neither an interface name nor a PCI address"));
    CHECK(refused("--cores", "0", "--cores"));
    CHECK(refused("--poll", "sometimes", "--poll"));
    CHECK(refused("--gateway", "02:e3", "--gateway"));
    char *argv3[] = {"e3-nic", "--wire", "p0", "--memif", "/tmp/x.sock", NULL};
    CHECK_EQ_INT(nic_cli_parse(5, argv3, &o, err), NIC_ERR);
    CHECK(strstr(err, "--host-address") != NULL);
    CHECK(refused("--wire", NULL, "needs a value"));

    /* calibration: the slow and fast services */
    const char *slow[] = {"top_ranker", "bayes", "sql", "api_gateway"};
    for (size_t i = 0; i < 4; i++) CHECK(nic_pace_factor(slow[i]) > 5.0);
    CHECK(nic_pace_factor("ipsec") == 1.0);
    CHECK(nic_pace_factor("kvs") == 1.0);   /* both platforms at line rate */
    CHECK(nic_pace_factor("nope") == 1.0);
    CHECK(nic_pace_factor("top_ranker") > nic_pace_factor("sql"));
    size_t rows;
    nic_calibration_table(&rows);
    CHECK_EQ_INT(rows, 16);
    CHECK(nic_active_watts("api_gateway") == 24.7);
    CHECK(nic_max_active_watts() == 24.7);
    return 0;
}
