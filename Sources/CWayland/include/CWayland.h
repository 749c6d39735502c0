/*
 * CWayland — umbrella header of the CWayland SwiftPM C target.
 *
 * SwiftPM generates the module map from this file (it is named after the
 * target), so every header in this directory must be #included below;
 * scripts/generate-protocols --check verifies that for the generated ones.
 * The <name>-client-protocol.h headers here and ../<name>-protocol.c are
 * generated from protocols/<name>.xml by scripts/generate-protocols; do not
 * edit them.
 *
 * Everything defined here is prefixed wlx_.
 *
 * Interface accessors (Swift imports the C `*_interface` globals as `let`
 * copies; taking their address hands libwayland a temporary copy in release
 * builds, which crashes it. Always use these instead of &foo_interface):
 *
 *   wlx_compositor_interface()               -> wl_compositor_interface
 *   wlx_output_interface()                   -> wl_output_interface
 *   wlx_shm_interface()                      -> wl_shm_interface
 *   wlx_layer_shell_interface()              -> zwlr_layer_shell_v1_interface
 *   wlx_xdg_output_manager_interface()       -> zxdg_output_manager_v1_interface
 *   wlx_viewporter_interface()               -> wp_viewporter_interface
 *   wlx_presentation_interface()             -> wp_presentation_interface
 *   wlx_fractional_scale_manager_interface() -> wp_fractional_scale_manager_v1_interface
 *   wlx_foreign_toplevel_manager_interface() -> zwlr_foreign_toplevel_manager_v1_interface
 *   wlx_workspace_manager_interface()        -> ext_workspace_manager_v1_interface
 *   wlx_content_type_manager_interface()     -> wp_content_type_manager_v1_interface
 *   wlx_single_pixel_buffer_manager_interface() -> wp_single_pixel_buffer_manager_v1_interface
 *
 * Macro shims (Swift cannot import macros that expand to casts):
 *
 *   wlx_egl_no_display()  -> EGL_NO_DISPLAY  (EGLDisplay)
 *   wlx_egl_no_context()  -> EGL_NO_CONTEXT  (EGLContext)
 *   wlx_egl_no_surface()  -> EGL_NO_SURFACE  (EGLSurface)
 */
#ifndef WAYLOOP_CWAYLAND_H
#define WAYLOOP_CWAYLAND_H

#include <wayland-client.h>
/* Must precede the EGL headers: it defines WL_EGL_PLATFORM, which makes
 * EGLNativeWindowType `struct wl_egl_window *` instead of an integer. */
#include <wayland-egl.h>
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GLES3/gl3.h>
#include <GLES2/gl2ext.h>

#include <poll.h>
#include <string.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <time.h>

#include "content-type-v1-client-protocol.h"
#include "ext-workspace-v1-client-protocol.h"
#include "fractional-scale-v1-client-protocol.h"
#include "presentation-time-client-protocol.h"
#include "single-pixel-buffer-v1-client-protocol.h"
#include "viewporter-client-protocol.h"
#include "wlr-foreign-toplevel-management-unstable-v1-client-protocol.h"
#include "wlr-layer-shell-unstable-v1-client-protocol.h"
#include "xdg-output-unstable-v1-client-protocol.h"
#include "xdg-shell-client-protocol.h"

/* ---- Interface accessors: stable addresses of the real C globals ---- */

/* Core: wl_compositor (bound from the registry). */
static inline const struct wl_interface *wlx_compositor_interface(void) { return &wl_compositor_interface; }
/* Core: wl_output (bound from the registry). */
static inline const struct wl_interface *wlx_output_interface(void) { return &wl_output_interface; }
/* Core: wl_shm (bound from the registry: the shm sink's buffers). */
static inline const struct wl_interface *wlx_shm_interface(void) { return &wl_shm_interface; }
/* wlr-layer-shell: zwlr_layer_shell_v1 (bound from the registry). */
static inline const struct wl_interface *wlx_layer_shell_interface(void) { return &zwlr_layer_shell_v1_interface; }
/* xdg-output: zxdg_output_manager_v1 (bound from the registry). */
static inline const struct wl_interface *wlx_xdg_output_manager_interface(void) { return &zxdg_output_manager_v1_interface; }
/* viewporter: wp_viewporter (bound from the registry). */
static inline const struct wl_interface *wlx_viewporter_interface(void) { return &wp_viewporter_interface; }
/* presentation-time: wp_presentation (bound from the registry). */
static inline const struct wl_interface *wlx_presentation_interface(void) { return &wp_presentation_interface; }
/* fractional-scale: wp_fractional_scale_manager_v1 (bound from the registry). */
static inline const struct wl_interface *wlx_fractional_scale_manager_interface(void) { return &wp_fractional_scale_manager_v1_interface; }
/* wlr-foreign-toplevel: zwlr_foreign_toplevel_manager_v1 (bound from the registry). */
static inline const struct wl_interface *wlx_foreign_toplevel_manager_interface(void) { return &zwlr_foreign_toplevel_manager_v1_interface; }
/* ext-workspace: ext_workspace_manager_v1 (bound from the registry). */
static inline const struct wl_interface *wlx_workspace_manager_interface(void) { return &ext_workspace_manager_v1_interface; }
/* content-type: wp_content_type_manager_v1 (bound from the registry). */
static inline const struct wl_interface *wlx_content_type_manager_interface(void) { return &wp_content_type_manager_v1_interface; }
/* single-pixel-buffer: wp_single_pixel_buffer_manager_v1 (bound from the registry). */
static inline const struct wl_interface *wlx_single_pixel_buffer_manager_interface(void) { return &wp_single_pixel_buffer_manager_v1_interface; }

/* ---- Macro shims ---- */

/* EGL_NO_DISPLAY is a cast macro, which Swift cannot import. */
static inline EGLDisplay wlx_egl_no_display(void) { return EGL_NO_DISPLAY; }
/* EGL_NO_CONTEXT is a cast macro, which Swift cannot import. */
static inline EGLContext wlx_egl_no_context(void) { return EGL_NO_CONTEXT; }
/* EGL_NO_SURFACE is a cast macro, which Swift cannot import. */
static inline EGLSurface wlx_egl_no_surface(void) { return EGL_NO_SURFACE; }

/* ---- EGL damage extensions (EGL_KHR/EXT_swap_buffers_with_damage, EGL_EXT_buffer_age) ---- */

/* The swap-with-damage entry point (KHR, else EXT: the same signature), or NULL. */
static inline void *wlx_egl_swap_with_damage_proc(EGLDisplay d) {
    const char *ext = eglQueryString(d, EGL_EXTENSIONS);
    if (!ext) return NULL;
    if (strstr(ext, "EGL_KHR_swap_buffers_with_damage")) return (void *)eglGetProcAddress("eglSwapBuffersWithDamageKHR");
    if (strstr(ext, "EGL_EXT_swap_buffers_with_damage")) return (void *)eglGetProcAddress("eglSwapBuffersWithDamageEXT");
    return NULL;
}
/* Calls it: rects are n x (x, y, width, height), origin bottom-left. */
static inline EGLBoolean wlx_egl_swap_with_damage(void *proc, EGLDisplay d, EGLSurface s, const EGLint *rects, EGLint n) {
    return ((PFNEGLSWAPBUFFERSWITHDAMAGEKHRPROC)proc)(d, s, (EGLint *)rects, n);
}
/* EGL_EXT_buffer_age is offered. */
static inline int wlx_egl_has_buffer_age(EGLDisplay d) {
    const char *ext = eglQueryString(d, EGL_EXTENSIONS);
    return ext && strstr(ext, "EGL_EXT_buffer_age") != NULL;
}
/* The back buffer's age (0: unknown contents). */
static inline EGLint wlx_egl_buffer_age(EGLDisplay d, EGLSurface s) {
    EGLint age = 0;
    if (!eglQuerySurface(d, s, EGL_BUFFER_AGE_EXT, &age)) return 0;
    return age;
}

#endif /* WAYLOOP_CWAYLAND_H */
