/* SPDX-License-Identifier: Apache-2.0 */
/* nic_files: see nic_files.h. */
#include "nic_files.h"

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

void nic_remove_runtime_dir(const char *dir) {
    DIR *d = dir && dir[0] ? opendir(dir) : NULL;
    if (!d) return;
    char path[PATH_MAX];
    for (struct dirent *e; (e = readdir(d));) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
        unlink(path);
    }
    closedir(d);
    rmdir(dir);
}
