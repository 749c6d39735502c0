# shellcheck shell=bash
# kwin_wayland --virtual (KDE Plasma 5.27: wlr-layer-shell, wp-fractional-scale-v1; no
# screencopy, so no shot). Sourced by scripts/compositor.

cmd_start_kwin() {
    (($# >= 1)) || usage
    check_dir_arg "$1"; local dir; dir=$(abs_dir "$1"); shift
    local size=1280x720 scale=1
    while (($#)); do
        case $1 in
            --output) (($# >= 2)) || die "--output needs WxH"; size=$2; shift 2 ;;
            --scale) (($# >= 2)) || die "--scale needs a number"; scale=$2; shift 2 ;;
            *) die "start-kwin: unknown argument '$1' (expected --output WxH, --scale S)" ;;
        esac
    done
    check_size_arg "$size"
    [[ "$scale" =~ ^[0-9]+(\.[0-9]+)?$ ]] || die "bad scale '$scale' (expected a number, e.g. 1.5)"
    local -a extra=(--no-kactivities) envv=()
    if [[ -n ${COMPOSITOR_CHROOT:-} ]]; then
        # KWin 6 (trixie's chroot: chroot.sh): no activities to turn off; QPainter (no GPU here)
        start_prepare "$dir" kwin_wayland dbus-run-session wayland-info
        extra=() envv=(KWIN_COMPOSE=Q QT_QPA_PLATFORM=wayland)
    else
        start_prepare "$dir" kwin_wayland dbus-run-session weston-info
    fi
    # The binary carries a file capability (cap_sys_resource) that this container refuses to
    # exec: a copy has none. It must still be called kwin_wayland: KWin's built-in Qt platform
    # plugin declines to load in a program of another name.
    mkdir -p -- "$dir/bin"
    if [[ -n ${COMPOSITOR_CHROOT:-} ]]; then cp -- "$CHROOT_ROOT/usr/bin/kwin_wayland" "$dir/bin/kwin_wayland"
    else cp -- "$(command -v kwin_wayland)" "$dir/bin/kwin_wayland"; fi
    chmod 0755 -- "$dir/bin" "$dir/bin/kwin_wayland"
    start_compositor kwin_wayland "$dir" "$dir/kwin.log" "${envv[@]}" \
        dbus-run-session -- "$dir/bin/kwin_wayland" --virtual --width "${size%x*}" --height "${size#*x}" --scale "$scale" \
        --socket wayland-0 --no-lockscreen --no-global-shortcuts "${extra[@]}"
    export WAYLAND_DISPLAY=wayland-0
    start_wait 0.05 offers_global zwlr_layer_shell_v1 \
        || start_failed "kwin_wayland did not become ready within ${START_TIMEOUT_S}s"
    start_done kwin XDG_RUNTIME_DIR "$XDG_RUNTIME_DIR" WAYLAND_DISPLAY "$WAYLAND_DISPLAY" \
        COMPOSITOR_PID "$COMP_PID" OUTPUTS Virtual-0
}
