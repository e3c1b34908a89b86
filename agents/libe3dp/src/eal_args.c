/* SPDX-License-Identifier: Apache-2.0 */
/* eal_args: see e3dp/eal.h (the pure part, and the runtime directory's removal). */
#include "e3dp/eal.h"

#include <dirent.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Append one argument, formatted into a->storage. */
static int dp_eal_vpush(dp_eal_args *a, char *err, const char *fmt, va_list ap) __attribute__((format(printf, 3, 0)));
static int dp_eal_vpush(dp_eal_args *a, char *err, const char *fmt, va_list ap) {
    char *at = a->storage + a->used;
    size_t room = sizeof(a->storage) - a->used;
    int n = a->argc < DP_EAL_MAX_ARGS ? vsnprintf(at, room, fmt, ap) : -1;
    if (n < 0 || (size_t)n >= room) return dp_set_error(err, "EAL: too many arguments");
    a->used += (size_t)n + 1;
    a->argv[a->argc++] = at;
    a->argv[a->argc] = NULL;
    return DP_OK;
}

static int dp_eal_push(dp_eal_args *a, char *err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int dp_eal_push(dp_eal_args *a, char *err, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int rc = dp_eal_vpush(a, err, fmt, ap);
    va_end(ap);
    return rc;
}

int dp_eal_args_words(dp_eal_args *a, const char *words, char *err) {
    for (const char *w = words; w && *w;) {
        size_t n = strcspn(w, " ");
        if (n && dp_eal_push(a, err, "%.*s", (int)n, w) != DP_OK) return DP_ERR;
        w += n + (w[n] == ' ');
    }
    return DP_OK;
}

int dp_eal_args_init(dp_eal_args *a, const dp_eal_config *c, char *err) {
    memset(a, 0, sizeof(*a));
    unsigned mb = c->memory_mb ? c->memory_mb : DP_EAL_MEMORY_MB;
    int rc = dp_eal_push(a, err, "%s", c->program);
    if (rc == DP_OK) rc = dp_eal_args_words(a, "--lcores", err);
    if (rc == DP_OK) rc = c->ncpu > 1 ? dp_eal_push(a, err, "(0-1)@(0-%ld)", c->ncpu - 1) : dp_eal_push(a, err, "(0-1)@0");
    if (rc == DP_OK && !c->real_devices) rc = dp_eal_args_words(a, "--no-huge --no-pci", err);
    if (rc == DP_OK) rc = dp_eal_args_words(a, "-m", err);
    if (rc == DP_OK) rc = dp_eal_push(a, err, "%u", mb);
    if (rc == DP_OK) rc = dp_eal_args_words(a, "--no-telemetry --log-level *:warning --file-prefix", err);
    if (rc != DP_OK) return DP_ERR;
    if (c->file_prefix) return dp_eal_push(a, err, "%s", c->file_prefix);
    return dp_eal_push(a, err, "%s-%ld", c->prefix_stem, (long)getpid());
}

int dp_eal_args_vdev(dp_eal_args *a, char *err, const char *fmt, ...) {
    if (dp_eal_push(a, err, "--vdev") != DP_OK) return DP_ERR;
    va_list ap;
    va_start(ap, fmt);
    int rc = dp_eal_vpush(a, err, fmt, ap);
    va_end(ap);
    return rc;
}

void dp_remove_runtime_dir(const char *dir) {
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
