// Test harness only: LD_PRELOADed into the inner sway of a nested sway (scripts/compositor
// start-nested), it hides the outer sway's wp_presentation global from it.
//
// Why: the inner sway's Wayland backend (wlroots 0.15) asks the outer sway for a presentation
// feedback with every frame it commits, and the outer headless sway 1.7 answers almost none of
// them (186 commits: 186 feedbacks asked, 4 discarded, none presented; WAYLAND_DEBUG=client on
// the inner sway). Both compositors keep every unanswered one: the outer sway's RSS grew by
// ~17 kB/s under a 30 fps wallpaper and its CPU with it, from 0.01 to 0.15 of a core in seven
// minutes, which in an hour starves the client under test. Without the global the backend
// times its frames by frame callbacks alone, as it does on a parent without wp_presentation.
//
// How: wl_registry listeners are wrapped so that the "wp_presentation" global never reaches
// the backend; every other event passes unchanged.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <wayland-client-core.h>

struct registry_listener {
    void (*global)(void *data, struct wl_proxy *registry, uint32_t name, const char *interface, uint32_t version);
    void (*global_remove)(void *data, struct wl_proxy *registry, uint32_t name);
};

// One per registry the process makes (a handful), kept for the process's life like the registry.
struct wrapped {
    const struct registry_listener *listener;
    void *data;
};

static void on_global(void *data, struct wl_proxy *registry, uint32_t name, const char *interface, uint32_t version) {
    struct wrapped *w = data;
    if (strcmp(interface, "wp_presentation") == 0 || !w->listener->global) return;
    w->listener->global(w->data, registry, name, interface, version);
}

static void on_global_remove(void *data, struct wl_proxy *registry, uint32_t name) {
    struct wrapped *w = data;
    if (w->listener->global_remove) w->listener->global_remove(w->data, registry, name);
}

static const struct registry_listener filtering = {on_global, on_global_remove};

int wl_proxy_add_listener(struct wl_proxy *proxy, void (**implementation)(void), void *data) {
    static int (*real)(struct wl_proxy *, void (**)(void), void *);
    if (!real) real = (int (*)(struct wl_proxy *, void (**)(void), void *))dlsym(RTLD_NEXT, "wl_proxy_add_listener");
    if (!real) abort();
    if (strcmp(wl_proxy_get_class(proxy), "wl_registry") == 0) {
        struct wrapped *w = malloc(sizeof *w);
        if (w) {
            w->listener = (const struct registry_listener *)implementation;
            w->data = data;
            return real(proxy, (void (**)(void))&filtering, w);
        }
    }
    return real(proxy, implementation, data);
}
