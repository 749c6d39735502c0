/* ext-workspace: list the workspaces of an ext-workspace-v1 compositor, or activate one by name,
 * as a user's workspace switcher would (for the tests: labwc has no IPC that switches workspaces).
 *
 *   ext-workspace list              one line per workspace: NAME<TAB>active|inactive
 *   ext-workspace activate NAME     activates it (ext_workspace_handle_v1.activate + commit);
 *                                   exit 1 with one line when no workspace has that name
 *
 * Built by the tests (Tests/WayLoopE2ETests/Harness.swift: ExtWorkspaceTool) with the client code
 * wayland-scanner makes from protocols/ext-workspace-v1.xml. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wayland-client.h>
#include "ext-workspace-v1-client-protocol.h"

#define MAX_WS 64

struct ws {
    struct ext_workspace_handle_v1 *handle;
    char *name;
    uint32_t state;
};

static struct ext_workspace_manager_v1 *manager;
static struct ws spaces[MAX_WS];
static int count;
static int done;

static void ws_id(void *d, struct ext_workspace_handle_v1 *h, const char *id) { (void)d; (void)h; (void)id; }
static void ws_name(void *d, struct ext_workspace_handle_v1 *h, const char *name) {
    (void)h;
    struct ws *w = d;
    free(w->name);
    w->name = strdup(name);
}
static void ws_coordinates(void *d, struct ext_workspace_handle_v1 *h, struct wl_array *a) { (void)d; (void)h; (void)a; }
static void ws_state(void *d, struct ext_workspace_handle_v1 *h, uint32_t state) {
    (void)h;
    ((struct ws *)d)->state = state;
}
static void ws_capabilities(void *d, struct ext_workspace_handle_v1 *h, uint32_t c) { (void)d; (void)h; (void)c; }
static void ws_removed(void *d, struct ext_workspace_handle_v1 *h) { (void)h; ((struct ws *)d)->handle = NULL; }
static const struct ext_workspace_handle_v1_listener ws_listener = {
    ws_id, ws_name, ws_coordinates, ws_state, ws_capabilities, ws_removed,
};

static void group_capabilities(void *d, struct ext_workspace_group_handle_v1 *g, uint32_t c) { (void)d; (void)g; (void)c; }
static void group_output(void *d, struct ext_workspace_group_handle_v1 *g, struct wl_output *o) { (void)d; (void)g; (void)o; }
static void group_workspace(void *d, struct ext_workspace_group_handle_v1 *g, struct ext_workspace_handle_v1 *w) { (void)d; (void)g; (void)w; }
static void group_removed(void *d, struct ext_workspace_group_handle_v1 *g) { (void)d; (void)g; }
static const struct ext_workspace_group_handle_v1_listener group_listener = {
    group_capabilities, group_output, group_output, group_workspace, group_workspace, group_removed,
};

static void mgr_group(void *d, struct ext_workspace_manager_v1 *m, struct ext_workspace_group_handle_v1 *g) {
    (void)d; (void)m;
    ext_workspace_group_handle_v1_add_listener(g, &group_listener, NULL);
}
static void mgr_workspace(void *d, struct ext_workspace_manager_v1 *m, struct ext_workspace_handle_v1 *h) {
    (void)d; (void)m;
    if (count == MAX_WS) return;
    spaces[count].handle = h;
    ext_workspace_handle_v1_add_listener(h, &ws_listener, &spaces[count]);
    count++;
}
static void mgr_done(void *d, struct ext_workspace_manager_v1 *m) { (void)d; (void)m; done = 1; }
static void mgr_finished(void *d, struct ext_workspace_manager_v1 *m) { (void)d; (void)m; }
static const struct ext_workspace_manager_v1_listener mgr_listener = { mgr_group, mgr_workspace, mgr_done, mgr_finished };

static void global(void *d, struct wl_registry *r, uint32_t name, const char *iface, uint32_t version) {
    (void)d; (void)version;
    if (strcmp(iface, ext_workspace_manager_v1_interface.name) == 0) {
        manager = wl_registry_bind(r, name, &ext_workspace_manager_v1_interface, 1);
        ext_workspace_manager_v1_add_listener(manager, &mgr_listener, NULL);
    }
}
static void global_remove(void *d, struct wl_registry *r, uint32_t name) { (void)d; (void)r; (void)name; }
static const struct wl_registry_listener registry_listener = { global, global_remove };

int main(int argc, char **argv) {
    if (argc < 2 || (strcmp(argv[1], "list") != 0 && !(strcmp(argv[1], "activate") == 0 && argc == 3))) {
        fprintf(stderr, "usage: ext-workspace list | activate NAME\n");
        return 2;
    }
    struct wl_display *display = wl_display_connect(NULL);
    if (!display) { fprintf(stderr, "ext-workspace: cannot connect to the Wayland display\n"); return 1; }
    struct wl_registry *registry = wl_display_get_registry(display);
    wl_registry_add_listener(registry, &registry_listener, NULL);
    wl_display_roundtrip(display);
    if (!manager) { fprintf(stderr, "ext-workspace: the compositor offers no ext_workspace_manager_v1\n"); return 1; }
    while (!done && wl_display_dispatch(display) != -1) {}
    if (strcmp(argv[1], "list") == 0) {
        for (int i = 0; i < count; i++)
            if (spaces[i].handle)
                printf("%s\t%s\n", spaces[i].name ? spaces[i].name : "?",
                       spaces[i].state & EXT_WORKSPACE_HANDLE_V1_STATE_ACTIVE ? "active" : "inactive");
        return 0;
    }
    for (int i = 0; i < count; i++) {
        if (spaces[i].handle && spaces[i].name && strcmp(spaces[i].name, argv[2]) == 0) {
            ext_workspace_handle_v1_activate(spaces[i].handle);
            ext_workspace_manager_v1_commit(manager);
            wl_display_roundtrip(display);
            return 0;
        }
    }
    fprintf(stderr, "ext-workspace: no workspace named '%s'\n", argv[2]);
    return 1;
}
