/* SPDX-License-Identifier: Apache-2.0 */
/* nic_files: files an e3-nic leaves behind, removed. */
#ifndef E3NIC_FILES_H
#define E3NIC_FILES_H

/* Remove the EAL's runtime directory `dir` (rte_eal_get_runtime_dir(), copied before
 * rte_eal_cleanup) and the files in it, so one NIC's config, fbarray and socket files never
 * outlive it. "" or a missing directory: nothing to do. */
void nic_remove_runtime_dir(const char *dir);

#endif
