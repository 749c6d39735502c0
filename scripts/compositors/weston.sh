# shellcheck shell=bash
# Headless weston (no wlr-layer-shell: wayloop refuses it). Sourced by scripts/compositor.

# Condition: weston listens on DISPLAY and has launched its desktop shell (right after the socket).
weston_up() {  # DISPLAY LOG
    [[ -S "$XDG_RUNTIME_DIR/$1" ]] && grep -q "launching '.*weston-desktop-shell'" "$2"
}

cmd_start_weston() {
    (($# == 1)) || usage
    check_dir_arg "$1"; local dir; dir=$(abs_dir "$1")
    start_prepare "$dir" weston
    local display=wayland-1
    start_compositor weston "$dir" "$dir/weston.log" \
        weston --backend=headless-backend.so --use-pixman --width=1280 --height=720 \
        "--socket=$display" --no-config --idle-time=0
    start_wait 0.02 weston_up "$display" "$dir/weston.log" \
        || start_failed "weston did not become ready within ${START_TIMEOUT_S}s"
    start_done weston XDG_RUNTIME_DIR "$XDG_RUNTIME_DIR" WAYLAND_DISPLAY "$display" \
        COMPOSITOR_PID "$COMP_PID" OUTPUTS headless
}
