# shellcheck shell=bash
# Headless mutter (GNOME; no wlr-layer-shell). Sourced by scripts/compositor.

cmd_start_mutter() {
    (($# == 1)) || usage
    check_dir_arg "$1"; local dir; dir=$(abs_dir "$1")
    start_prepare "$dir" mutter dbus-run-session weston-info
    # mutter wants a session bus; its own warnings (no colord, no locale1) are harmless
    start_compositor mutter "$dir" "$dir/mutter.log" \
        dbus-run-session -- mutter --headless --wayland --no-x11 --virtual-monitor 1280x720 --wayland-display wayland-0
    export WAYLAND_DISPLAY=wayland-0
    start_wait 0.05 offers_global wl_output \
        || start_failed "mutter did not become ready within ${START_TIMEOUT_S}s"
    start_done mutter XDG_RUNTIME_DIR "$XDG_RUNTIME_DIR" WAYLAND_DISPLAY "$WAYLAND_DISPLAY" \
        COMPOSITOR_PID "$COMP_PID" OUTPUTS Virtual-1
}
