# shellcheck shell=bash
# nested sway: an inner sway (WLR_BACKENDS=wayland) whose outputs are windows of an outer
# headless sway. The outer sway floats those windows ("wlroots - WL-n"), lays them out left to
# right without overlap (frame callbacks only reach windows on its output) and grows its own
# output to hold them; a window's size is the inner output's mode. Sourced by scripts/compositor;
# sway.sh has the IPC helpers it shares with the headless sway (ipc_outputs, sway_up, new_output_in).

HIDDEN_WS=wayloop-hidden
NESTED_WAIT_S=10

# The outer sway's output: sets OUTER_OUT OUTER_W OUTER_H OUTER_WS (its visible workspace)
outer_output() {
    local line
    line=$(swaymsg -s "$OUTER_SWAYSOCK" -r -t get_outputs 2>/dev/null | "$PYTHON" -I "$LIB_DIR/sway-json.py" outer-output) || return 1
    [[ -n "$line" ]] || return 1
    read -r OUTER_OUT OUTER_W OUTER_H OUTER_WS <<<"$line"
}

# Inner output windows in the outer sway's tree, as lines:
#   NAME WORKSPACE X Y WIDTH HEIGHT FLOATING(0/1) FOCUSED(0/1)
outer_windows() {
    swaymsg -s "$OUTER_SWAYSOCK" -r -t get_tree 2>/dev/null | "$PYTHON" -I "$LIB_DIR/sway-json.py" windows | sort -t- -k2,2n
}

# swaymsg -s SOCK COMMAND, or die with one line
ipc_cmd() {
    local sock=$1 out; shift
    if ! out=$(swaymsg -s "$sock" -- "$*" 2>&1); then
        die "swaymsg '$*' failed: $(tr '\n' ' ' <<<"$out" | sed 's/  */ /g')"
    fi
}

win_criteria() { printf '[title="^wlroots - %s$"]' "$1"; }

# Polls CONDITION (a function, run in this shell; it may set NOW to describe the state) every
# 20 ms for up to NESTED_WAIT_S; dies with WHAT (and NOW) when it does not come true.
WAIT_WHAT=""
wait_for() {
    WAIT_WHAT=$1; shift
    POLL_CHECK=nested_alive POLL_DEADLINE=$(( $(now_ms) + NESTED_WAIT_S * 1000 )) \
        poll_until 0.02 "$@" || die "$WAIT_WHAT within ${NESTED_WAIT_S}s${NOW:+ ($NOW)}"
}
nested_alive() {
    pid_alive "$COMPOSITOR_PID" || die "$WAIT_WHAT: the inner sway exited; see $NESTED_DIR/inner.log: $(grep -v '^\s*$' "$NESTED_DIR/inner.log" | tail -n 1)"
    pid_alive "$OUTER_PID" || die "$WAIT_WHAT: the outer sway exited; see $NESTED_DIR/sway.log: $(grep -v '^\s*$' "$NESTED_DIR/sway.log" | tail -n 1)"
}

# conditions for wait_for
inner_output_is() {  # NAME [W H [SCALE]]
    local line n w h s
    line=$(ipc_outputs "$SWAYSOCK" | awk -v n="$1" '$1 == n') || true
    if [[ -z "$line" ]]; then NOW="$1 not in the inner get_outputs"; return 1; fi
    read -r n w h s <<<"$line"
    NOW="$1 is ${w}x${h} scale $s"
    [[ -z "${2:-}" ]] || [[ "$w" == "$2" && "$h" == "$3" ]] || return 1
    [[ -z "${4:-}" ]] || awk -v a="$s" -v b="$4" 'BEGIN { d = a - b; exit !(d < 0.0001 && d > -0.0001) }' || return 1
}
inner_output_gone() {
    if ipc_outputs "$SWAYSOCK" | awk -v n="$1" '$1 == n { f = 1 } END { exit !f }'; then
        NOW="$1 still in the inner get_outputs"; return 1
    fi
}
window_on() {  # NAME WORKSPACE|- : the outer window of NAME exists (on WORKSPACE), floating
    local line ws fl
    line=$(outer_windows | awk -v n="$1" '$1 == n') || true
    if [[ -z "$line" ]]; then NOW="no window 'wlroots - $1' in the outer sway"; return 1; fi
    read -r _ ws _ _ _ _ fl _ <<<"$line"
    NOW="window of $1 is on outer workspace $ws, floating $fl"
    [[ "$fl" == 1 ]] || return 1
    [[ "$2" == - || "$ws" == "$2" ]]
}
window_gone() {
    if outer_windows | awk -v n="$1" '$1 == n { f = 1 } END { exit !f }'; then
        NOW="the window of $1 is still in the outer sway"; return 1
    fi
}

# Makes the outer sway send the inner one an event that changes nothing for the inner outputs: a
# focus change (xdg_toplevel.configure with another "activated" state, same size); when no window
# is shown, a new (empty) seat: a wl_registry.global event.
outer_poke() {
    local n ws fl foc target="" focused=""
    outer_output || return 0
    while read -r n ws _ _ _ _ fl foc; do
        [[ "$ws" == "$OUTER_WS" ]] || continue
        if [[ "$foc" == 1 ]]; then focused=$n; elif [[ -z "$target" ]]; then target=$n; fi
    done < <(outer_windows)
    if [[ -n "$target" ]]; then
        swaymsg -s "$OUTER_SWAYSOCK" "$(win_criteria "$target") focus" >/dev/null 2>&1 || true
    elif [[ -n "$focused" ]]; then
        swaymsg -s "$OUTER_SWAYSOCK" focus parent >/dev/null 2>&1 || true
    else
        swaymsg -s "$OUTER_SWAYSOCK" seat "wayloop-poke-$(now_ms)" fallback false >/dev/null 2>&1 || true
    fi
}

# create_output on the inner sway. There, wlroots 0.15's wayland backend does a
# wl_display_roundtrip with the outer sway; when events from the outer sway were already pending in
# the same event-loop turn (frame callbacks of a playing client, say), the roundtrip reads them, the
# backend's fd handler then blocks in wl_display_dispatch until the outer sway sends it something
# else, and the IPC reply is never sent (swaymsg: "Unable to receive IPC response"). While the
# reply is late, poke the outer sway every 0.3 s so that it sends an event.
inner_create_output() {
    local out=$NESTED_DIR/create-output.out pid t t0 deadline next
    swaymsg -s "$SWAYSOCK" create_output >"$out" 2>&1 &
    pid=$!
    t0=$(now_ms); deadline=$(( t0 + NESTED_WAIT_S * 1000 )); next=$(( t0 + 300 ))
    while pid_alive "$pid"; do
        t=$(now_ms)
        if (( t >= deadline )); then
            kill "$pid" 2>/dev/null || true
            die "the inner sway did not answer create_output within ${NESTED_WAIT_S}s"
        fi
        if (( t >= next )); then
            printf '%s create_output unanswered after %d ms: poking the outer sway\n' "$(date +%T.%N)" $(( t - t0 )) >>"$NESTED_DIR/pokes.log"
            outer_poke
            next=$(( t + 300 ))
        fi
        sleep 0.02
    done
    if ! wait "$pid"; then
        die "swaymsg create_output failed on the inner sway: $(tr '\n' ' ' <"$out" | sed 's/  */ /g')"
    fi
}

# Floats every inner output window, sizes the ones named in NAME=WxH arguments, places them left to
# right in WL-n order (hidden ones keep their slot) and first grows the outer output to hold them.
nested_layout() {
    local -A want=()
    local a n w h
    for a in "$@"; do want[${a%%=*}]=${a#*=}; done
    local -a names=() ww=() wh=()
    while read -r n _ _ _ w h _ _; do
        [[ -n "$n" ]] || continue
        if [[ -n "${want[$n]:-}" ]]; then w=${want[$n]%x*}; h=${want[$n]#*x}; fi
        names+=("$n"); ww+=("$w"); wh+=("$h")
    done < <(outer_windows)
    for a in "${!want[@]}"; do
        [[ " ${names[*]} " == *" $a "* ]] || die "no window 'wlroots - $a' in the outer sway"
    done
    local total=0 maxh=0 i
    for i in "${!names[@]}"; do
        total=$(( total + ww[i] )); (( wh[i] > maxh )) && maxh=${wh[i]}
    done
    outer_output || die "cannot read the outer sway's output"
    if (( total > OUTER_W || maxh > OUTER_H )); then
        (( total > OUTER_W )) || total=$OUTER_W
        (( maxh > OUTER_H )) || maxh=$OUTER_H
        ipc_cmd "$OUTER_SWAYSOCK" output "$OUTER_OUT" mode "${total}x${maxh}"
    fi
    local cmd="" x=0
    for i in "${!names[@]}"; do
        cmd+="$(win_criteria "${names[i]}") floating enable, resize set ${ww[i]} ${wh[i]}, move position $x 0; "
        x=$(( x + ww[i] ))
    done
    [[ -z "$cmd" ]] || ipc_cmd "$OUTER_SWAYSOCK" "$cmd"
}

# Loads DIR/env of a running nested sway: sets NESTED_DIR and exports its variables.
nested_env() {
    check_dir_arg "$1"
    NESTED_DIR=$(abs_dir "$1")
    require_cmd swaymsg "$PYTHON"
    unset OUTER_SWAYSOCK OUTER_PID OUTER_WAYLAND_DISPLAY
    load_env "$NESTED_DIR"
    [[ -n "${OUTER_SWAYSOCK:-}" ]] || die "$NESTED_DIR is not a nested sway (start one with: compositor start-nested DIR)"
    pid_is_instance "${COMPOSITOR_PID:-}" "$XDG_RUNTIME_DIR" || die "the inner sway in $NESTED_DIR is not running"
    pid_is_instance "${OUTER_PID:-}" "$XDG_RUNTIME_DIR" || die "the outer sway in $NESTED_DIR is not running"
}

# NAME must be an output of the inner sway
need_output() {
    inner_output_is "$1" || die "no output '$1' in the inner sway (outputs: $(ipc_outputs "$SWAYSOCK" | awk '{ print $1 }' | tr '\n' ' ' | sed 's/ $//'))"
}

# Rewrites OUTPUTS in DIR/env with the inner sway's current outputs.
update_outputs_env() {
    local outs tmp=$NESTED_DIR/env.tmp
    outs=$(ipc_outputs "$SWAYSOCK" | awk '{ print $1 }' | sort -t- -k2,2n | tr '\n' ' ' | sed 's/ $//')
    awk -v v="OUTPUTS=$(env_quote "$outs")" '/^OUTPUTS=/ { print v; next } { print }' "$NESTED_DIR/env" >"$tmp"
    mv -f -- "$tmp" "$NESTED_DIR/env"
}

nested_failed() {  # WHAT : stop both compositors, one line on stderr
    local what=$1 log=$NESTED_DIR/sway.log
    [[ -f "$NESTED_DIR/inner.log" && -s "$NESTED_DIR/inner.log" ]] && log=$NESTED_DIR/inner.log
    terminate "$(read_pidfile "$NESTED_DIR/inner.pid")" "$(read_pidfile "$NESTED_DIR/inner-supervisor.pid")"
    terminate "$(read_pidfile "$NESTED_DIR/compositor.pid")" "$(read_pidfile "$NESTED_DIR/supervisor.pid")"
    die "$what; see $log: $(grep -v '^\s*$' "$log" | tail -n 1)"
}

# Condition for start_wait: the inner sway (behind SOCK) reports its first output WL-1
inner_has_outputs() { ipc_outputs "$1" | grep -q '^WL-'; }

cmd_start_nested() {
    (($# >= 1)) || usage
    check_dir_arg "$1"; local dir; dir=$(abs_dir "$1"); shift
    parse_sizes start-nested "$@"
    start_prepare "$dir" sway swaymsg
    NESTED_DIR=$dir
    rm -f -- "$dir/inner.log"

    sway_config "$dir/config" "outer headless sway of a nested sway for WayLoop tests" \
        'floating_minimum_size -1 x -1' 'floating_maximum_size -1 x -1' \
        'for_window [title="^wlroots - WL-[0-9]+$"] floating enable'
    sway_config "$dir/inner-config" "inner sway of a nested sway: its outputs are outer windows" \
        'for_window [app_id="wayloop-cover" title="^wayloop-cover$"] fullscreen enable'
    # The inner sway asks the outer one for a presentation feedback with every frame, which the
    # outer headless sway 1.7 never answers: both keep them all, and the outer's CPU grows until
    # it starves the client under test (scripts/hide-presentation.c). The inner sway gets a
    # registry without wp_presentation instead.
    require_cmd cc
    cc -shared -fPIC -O2 -o "$dir/hide-presentation.so" "$SCRIPT_DIR/hide-presentation.c" -ldl 2>"$dir/cc.log" \
        || die "cannot build scripts/hide-presentation.c for the inner sway: $(head -n 1 "$dir/cc.log")"
    chmod 0755 "$dir/hide-presentation.so"

    # Both sways under one start (one deadline); a failure stops both (nested_failed).
    START_FAIL=nested_failed
    start_compositor "the outer sway" "$dir" "$dir/sway.log" \
        WLR_BACKENDS=headless WLR_RENDERER=pixman WLR_LIBINPUT_NO_DEVICES=1 \
        sway --config "$dir/config"
    OUTER_PID=$COMP_PID
    COMPOSITOR_PID=$COMP_PID
    start_wait 0.02 sway_up "$OUTER_PID" "" sway_answers \
        || start_failed "the outer sway did not become ready within ${START_TIMEOUT_S}s"
    local odisplay=$FOUND_DISPLAY osock=$FOUND_SOCK
    export OUTER_SWAYSOCK=$osock
    # room for the inner outputs' windows side by side
    local total=0 maxh=0 s w h
    for s in "${SIZES[@]}"; do
        w=${s%x*}; h=${s#*x}; total=$(( total + w )); (( h > maxh )) && maxh=$h
    done
    outer_output || start_failed "the outer sway reports no output"
    swaymsg -s "$osock" output "$OUTER_OUT" mode "${total}x${maxh}" >/dev/null 2>&1 \
        || start_failed "cannot set the outer output's mode to ${total}x${maxh}"

    launch_as "$dir" "$dir/inner.log" "$dir/inner.pid" "$dir/inner-supervisor.pid" \
        "WAYLAND_DISPLAY=$odisplay" WLR_BACKENDS=wayland WLR_RENDERER=pixman WLR_LIBINPUT_NO_DEVICES=1 \
        "LD_PRELOAD=$dir/hide-presentation.so" sway --config "$dir/inner-config"
    COMPOSITOR_PID=$COMP_PID
    START_WATCH=("$COMPOSITOR_PID" "the inner sway" "$OUTER_PID" "the outer sway")
    FOUND_DISPLAY=""
    start_wait 0.02 sway_up "$COMPOSITOR_PID" "$odisplay" inner_has_outputs \
        || start_failed "the inner sway did not become ready within ${START_TIMEOUT_S}s"
    export SWAYSOCK=$FOUND_SOCK WAYLAND_DISPLAY=$FOUND_DISPLAY

    # outputs: WL-1 is there; create the others, then size and place their windows
    local -a names=()
    local i before
    names+=("$(ipc_outputs "$SWAYSOCK" | awk '$1 ~ /^WL-/ { print $1; exit }')")
    for ((i = 1; i < ${#SIZES[@]}; i++)); do
        before=$(ipc_outputs "$SWAYSOCK" | awk '{ print $1 }')
        ( inner_create_output ) 2>"$dir/create-output.err" \
            || start_failed "$(tail -n 1 "$dir/create-output.err" | sed "s/^$PROG: //")"
        start_wait 0.02 new_output_in "$before" \
            || start_failed "the output made by create_output did not appear"
        names+=("$NEW_NAME")
    done
    local -a layout=()
    for i in "${!names[@]}"; do
        start_wait 0.02 window_on "${names[i]}" - \
            || start_failed "${NOW:-no window for ${names[i]} in the outer sway}"
        layout+=("${names[i]}=${SIZES[i]}")
    done
    nested_layout "${layout[@]}"
    for i in "${!names[@]}"; do
        start_wait 0.02 inner_output_is "${names[i]}" "${SIZES[i]%x*}" "${SIZES[i]#*x}" \
            || start_failed "output ${names[i]} did not become ${SIZES[i]} ($NOW)"
    done

    start_done "nested sway" XDG_RUNTIME_DIR "$XDG_RUNTIME_DIR" WAYLAND_DISPLAY "$WAYLAND_DISPLAY" \
        SWAYSOCK "$SWAYSOCK" COMPOSITOR_PID "$COMPOSITOR_PID" OUTPUTS "${names[*]}" \
        OUTER_WAYLAND_DISPLAY "$odisplay" OUTER_SWAYSOCK "$osock" OUTER_PID "$OUTER_PID"
}

cmd_add_output() {
    (($# == 1 || $# == 2)) || usage
    nested_env "$1"
    local size=${2:-1280x720} before name
    check_size_arg "$size"
    before=$(ipc_outputs "$SWAYSOCK" | awk '{ print $1 }')
    inner_create_output
    wait_for "the output made by create_output did not appear" new_output_in "$before"
    name=$NEW_NAME
    wait_for "no window for $name in the outer sway" window_on "$name" -
    nested_layout "$name=$size"
    wait_for "$name did not become $size" inner_output_is "$name" "${size%x*}" "${size#*x}"
    update_outputs_env
    printf '%s\n' "$name"
}

cmd_remove_output() {
    (($# == 2)) || usage
    nested_env "$1"
    local name=$2
    need_output "$name"
    ipc_cmd "$OUTER_SWAYSOCK" "$(win_criteria "$name") kill"
    wait_for "$name was not removed" inner_output_gone "$name"
    wait_for "the window of $name did not close" window_gone "$name"
    update_outputs_env
}

cmd_resize_output() {
    (($# == 3)) || usage
    nested_env "$1"
    local name=$2 size=$3
    check_size_arg "$size"
    need_output "$name"
    nested_layout "$name=$size"
    wait_for "$name did not become $size" inner_output_is "$name" "${size%x*}" "${size#*x}"
}

cmd_scale_output() {
    (($# == 3)) || usage
    nested_env "$1"
    local name=$2 scale=$3
    if ! [[ "$scale" =~ ^[0-9]+(\.[0-9]+)?$ ]] || ! awk -v s="$scale" 'BEGIN { exit !(s > 0) }'; then
        die "bad scale '$scale' (expected a number > 0, e.g. 2)"
    fi
    need_output "$name"
    ipc_cmd "$SWAYSOCK" output "$name" scale "$scale"
    wait_for "$name did not get scale $scale" inner_output_is "$name" "" "" "$scale"
}

cmd_hide_output() {
    (($# == 2)) || usage
    nested_env "$1"
    local name=$2
    need_output "$name"
    outer_output || die "cannot read the outer sway's output"
    local shown=$OUTER_WS
    [[ "$shown" != "$HIDDEN_WS" ]] || die "the outer sway shows workspace $HIDDEN_WS"
    ipc_cmd "$OUTER_SWAYSOCK" "$(win_criteria "$name") move container to workspace $HIDDEN_WS"
    wait_for "the window of $name did not move to outer workspace $HIDDEN_WS" window_on "$name" "$HIDDEN_WS"
    outer_output || die "cannot read the outer sway's output"
    [[ "$OUTER_WS" == "$shown" ]] || die "the outer sway switched to workspace $OUTER_WS"
}

cmd_show_output() {
    (($# == 2)) || usage
    nested_env "$1"
    local name=$2 line w h
    need_output "$name"
    line=$(ipc_outputs "$SWAYSOCK" | awk -v n="$name" '$1 == n')
    read -r _ w h _ <<<"$line"
    outer_output || die "cannot read the outer sway's output"
    ipc_cmd "$OUTER_SWAYSOCK" "$(win_criteria "$name") move container to workspace $OUTER_WS"
    wait_for "the window of $name did not come back to outer workspace $OUTER_WS" window_on "$name" "$OUTER_WS"
    nested_layout "$name=${w}x$h"
    wait_for "$name did not keep its size ${w}x$h" inner_output_is "$name" "$w" "$h"
}

