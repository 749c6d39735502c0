# shellcheck shell=bash
# scripts/compositor's library: what every compositor shares. Sourced by scripts/compositor (after
# `set -euo pipefail`), never run: errors, processes and pid files, the unprivileged compositor
# user and its runtime dir, the supervisor, one start-and-wait (start_prepare, start_compositor,
# start_wait, start_done), and the commands that work on any compositor (stop, shot, uncover).

PROG=compositor
SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)   # scripts/
LIB_DIR=$SCRIPT_DIR/compositors
TEST_USER=wayloop-test
START_TIMEOUT_S=10
STOP_TIMEOUT_S=5
# The helpers run often (every 20 ms in a poll): Debian's python3 starts in ~15 ms, a pyenv shim
# on PATH in ~100 ms, so the system one when there is one.
PYTHON=/usr/bin/python3
[[ -x $PYTHON ]] || PYTHON=python3

DIED=0
die() { printf '%s: %s\n' "$PROG" "$*" >&2; DIED=1; exit 1; }
# Any other failure (set -e) still ends with one line naming the command that failed.
set -E
ERR_AT=""
# (FILE line N: the line is FILE's, scripts/compositor's or one in compositors/)
trap 'ERR_AT=${BASH_SOURCE[0]:-$0}; ERR_AT="${ERR_AT##*/} line $LINENO: $BASH_COMMAND"' ERR
on_exit() {
    local rc=$?
    if ((rc != 0 && rc != 2 && DIED == 0)); then
        printf '%s: failed (exit %s) at %s\n' "$PROG" "$rc" "${ERR_AT:-?}" >&2
    fi
}
trap on_exit EXIT

now_ms() { local t; t=$(date +%s%N); echo $((t / 1000000)); }

# ---------------------------------------------------------------------------------------------
# arguments

abs_dir() {  # DIR -> absolute path (need not exist); call as dir=$(abs_dir "$1") after check_dir_arg
    realpath -m -- "$1"
}
check_dir_arg() { [[ -n "${1:-}" ]] || die "DIR must not be empty"; }

check_size_arg() {
    [[ "$1" =~ ^[1-9][0-9]*x[1-9][0-9]*$ ]] || die "bad output size '$1' (expected WxH, e.g. 1280x720)"
}

# COMMAND [--output WxH | --output=WxH]... -> SIZES (checked; 1280x720 when none)
parse_sizes() {
    local cmd=$1; shift
    SIZES=()
    while (($#)); do
        case $1 in
            --output) (($# >= 2)) || die "--output needs WxH"; SIZES+=("$2"); shift 2 ;;
            --output=*) SIZES+=("${1#--output=}"); shift ;;
            *) die "$cmd: unknown argument '$1' (expected --output WxH)" ;;
        esac
    done
    ((${#SIZES[@]})) || SIZES=(1280x720)
    local s
    for s in "${SIZES[@]}"; do check_size_arg "$s"; done
}

require_cmd() {
    local c
    for c in "$@"; do command -v "$c" >/dev/null 2>&1 || die "'$c' not found in PATH (install it: apt-get install $c)"; done
}

# ---------------------------------------------------------------------------------------------
# processes

# Is PID a live (non-zombie) process?
pid_alive() {
    local pid=$1 stat
    [[ "$pid" =~ ^[0-9]+$ ]] || return 1
    stat=$(cat "/proc/$pid/stat" 2>/dev/null) || return 1
    stat=${stat##*) }
    [[ "${stat%% *}" != Z && "${stat%% *}" != X ]]
}

# Does PID belong to the instance whose runtime dir is RUNTIME (checked through its environment)?
pid_is_instance() {
    local pid=$1 runtime=$2
    pid_alive "$pid" || return 1
    grep -qzxF -- "XDG_RUNTIME_DIR=$runtime" "/proc/$pid/environ" 2>/dev/null
}

# Wait up to SECONDS for PID to be gone (or a zombie). Returns 1 on timeout.
wait_gone() {
    local pid=$1 deadline
    deadline=$(( $(now_ms) + $2 * 1000 ))
    while pid_alive "$pid"; do
        (( $(now_ms) < deadline )) || return 1
        sleep 0.05
    done
}

read_pidfile() {
    local v=""
    if [[ -f "$1" ]]; then read -r v <"$1" || true; fi
    printf '%s' "$v"
}

# Kill PID (TERM, bounded wait, KILL), then wait for its supervisor SUP (pid, may be empty).
terminate() {
    local pid=$1 sup=$2
    if pid_alive "$pid"; then
        kill -TERM "$pid" 2>/dev/null || true
        if ! wait_gone "$pid" "$STOP_TIMEOUT_S"; then
            kill -KILL "$pid" 2>/dev/null || true
            wait_gone "$pid" 2 || true
        fi
    fi
    if [[ -n "$sup" ]] && pid_alive "$sup"; then
        # the supervisor reaps everything and exits on its own (KILLs leftovers after 2 s)
        if ! wait_gone "$sup" "$STOP_TIMEOUT_S"; then
            kill -KILL "$sup" 2>/dev/null || true
            wait_gone "$sup" 2 || true
        fi
    fi
}

# terminate with pid files: the PIDFILE's process, if it is this instance's (pids get reused),
# then SUPFILE's supervisor. Dies with "could not stop WHAT pid N" when the process outlives it.
terminate_files() {  # DIR PIDFILE SUPFILE WHAT [PID: instead of PIDFILE's]
    local dir=$1 what=$4 pid=${5:-} sup
    [[ -n "$pid" ]] || pid=$(read_pidfile "$2")
    sup=$(read_pidfile "$3")
    pid_is_instance "$pid" "$dir/runtime" || pid=""
    [[ -n "$sup" ]] && ! pid_alive "$sup" && sup=""
    if [[ -n "$pid" || -n "$sup" ]]; then
        terminate "$pid" "$sup"
    fi
    if [[ -n "$pid" ]] && pid_alive "$pid"; then
        die "could not stop $what pid $pid"
    fi
}

# Polls CONDITION (a command run in this shell; it may set NOW to describe what it saw) every
# INTERVAL seconds until it succeeds (0) or POLL_DEADLINE (now_ms) passes (1). Before each try
# it runs POLL_CHECK, a command that ends the script when a process it watches is gone.
NOW=""
poll_until() {  # INTERVAL CONDITION [ARG]...
    local interval=$1; shift
    NOW=""
    while :; do
        "$POLL_CHECK"
        if "$@"; then return 0; fi
        (( $(now_ms) < POLL_DEADLINE )) || return 1
        sleep "$interval"
    done
}

# ---------------------------------------------------------------------------------------------
# the compositor user, DIR and the supervisor

# Sets RUN_AS (prefix command that drops to the compositor user) and RUN_UID/RUN_GID.
setup_user() {
    RUN_AS=()
    if [[ $(id -u) -ne 0 ]]; then
        RUN_UID=$(id -u); RUN_GID=$(id -g)
        return
    fi
    require_cmd setpriv useradd flock
    if ! id -u "$TEST_USER" >/dev/null 2>&1; then
        local lock=/run/lock
        [[ -d $lock && -w $lock ]] || lock=/tmp
        (
            flock -w 30 9 || die "could not lock $lock/wayloop-test-user.lock"
            if ! id -u "$TEST_USER" >/dev/null 2>&1; then
                useradd --system --user-group --no-create-home --home-dir /nonexistent \
                    --shell /usr/sbin/nologin --comment "WayLoop test compositors" "$TEST_USER" \
                    >/dev/null 2>&1 || id -u "$TEST_USER" >/dev/null 2>&1 \
                    || die "could not create system user $TEST_USER (useradd failed)"
            fi
        ) 9>"$lock/wayloop-test-user.lock" || { DIED=1; exit 1; }
    fi
    RUN_UID=$(id -u "$TEST_USER"); RUN_GID=$(id -g "$TEST_USER")
    RUN_AS=(setpriv "--reuid=$RUN_UID" "--regid=$RUN_GID" --init-groups)
}

# Prepare DIR and a fresh DIR/runtime for a new compositor.
prepare_dir() {
    local dir=$1 pid
    mkdir -p -- "$dir" 2>/dev/null || die "cannot create directory $dir"
    if [[ -f "$dir/env" ]]; then
        for pid in "$(sed -n 's/^COMPOSITOR_PID=//p' "$dir/env" | tr -d "'")" \
                   "$(sed -n 's/^OUTER_PID=//p' "$dir/env" | tr -d "'")"; do
            if pid_is_instance "$pid" "$dir/runtime"; then
                die "a compositor is already running in $dir (pid $pid); run: compositor stop $dir"
            fi
        done
    fi
    rm -f -- "$dir/env" "$dir/compositor.pid" "$dir/supervisor.pid" "$dir/cover.pid" "$dir/cover-supervisor.pid" \
        "$dir/inner.pid" "$dir/inner-supervisor.pid"
    rm -rf -- "$dir/runtime"
    mkdir -m 0700 -- "$dir/runtime"
    if [[ $(id -u) -eq 0 ]]; then
        chown "$RUN_UID:$RUN_GID" "$dir/runtime"
        # DIR may be a 0700 mktemp dir: the compositor user must be able to traverse it
        if ! "${RUN_AS[@]}" test -x "$dir/runtime" 2>/dev/null; then
            chmod o+x -- "$dir"
            "${RUN_AS[@]}" test -x "$dir/runtime" 2>/dev/null \
                || die "user $TEST_USER cannot reach $dir/runtime (a parent directory of $dir is not searchable by others)"
        fi
    fi
}

# COMMAND... under the supervisor (supervise.py: it writes the command's pid to PIDFILE and
# reaps it and all it leaves behind), in the background, stdin /dev/null, output appended to LOG.
# Sets SUP_PID.
supervise() {  # PIDFILE LOG COMMAND...
    local pidfile=$1 log=$2; shift 2
    "$PYTHON" -I "$LIB_DIR/supervise.py" "$pidfile" "$@" </dev/null >>"$log" 2>&1 &
    SUP_PID=$!
}

# Start COMMAND... (the compositor command line, minus user switch) under the supervisor, as
# the compositor user with a clean environment; LOG is emptied first. Sets SUP_PID and COMP_PID.
launch_as() {  # DIR LOG PIDFILE SUPFILE COMMAND...
    local dir=$1 log=$2 pidfile=$3 supfile=$4; shift 4
    local -a envv=(env -i "PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin" "HOME=$dir/runtime"
                   "XDG_RUNTIME_DIR=$dir/runtime" "LANG=C.UTF-8")
    : >"$log"
    supervise "$pidfile" "$log" "${RUN_AS[@]}" "${envv[@]}" "$@"
    echo "$SUP_PID" >"$supfile"
    # 10 s: the supervisor is a python3 start, which a busy shared machine can hold up for seconds.
    local deadline=$(( $(now_ms) + 10000 ))
    COMP_PID=""
    while [[ -z "$COMP_PID" ]]; do
        COMP_PID=$(read_pidfile "$pidfile")
        [[ -n "$COMP_PID" ]] && break
        pid_alive "$SUP_PID" || die "the compositor supervisor exited at once; see $log: $(tail -n 1 "$log")"
        if (( $(now_ms) >= deadline )); then
            # SIGTERM: the supervisor forwards it to the compositor it may have started since, reaps
            # it and exits (nothing left running when the start fails).
            kill -TERM "$SUP_PID" 2>/dev/null || true
            terminate "$(read_pidfile "$pidfile")" "$SUP_PID"
            die "the compositor supervisor did not start the compositor in 10 s"
        fi
        sleep 0.01
    done
}

# ---------------------------------------------------------------------------------------------
# start and wait for ready, the same for every compositor:
#
#   start_prepare DIR TOOL...                   tools there, compositor user, fresh DIR/runtime
#   start_compositor NAME DIR LOG COMMAND...     launch it (DIR/compositor.pid, supervisor.pid)
#   start_wait INTERVAL CONDITION [ARG]... || start_failed "what did not happen"
#   ... (more waits; each one fails the start at once, "NAME exited during startup", when a
#        process in START_WATCH is gone, and returns 1 at the start's one deadline)
#   start_done LABEL KEY VALUE...                write DIR/env (and print it)
#
# START_WATCH holds "PID NAME" pairs (the compositor: COMP_PID and NAME); start_failed stops the
# compositor (START_FAIL: how; nested_failed for a nested sway) and dies with one line and the
# last line of START_LOG.

# Before the start: the TOOLs (and the helpers') are there, the compositor user, a fresh DIR/runtime.
start_prepare() {  # DIR TOOL...
    # COMPOSITOR_CHROOT (sid, trixie): the compositor and its tools are the chroot's (chroot.sh)
    if [[ -n ${COMPOSITOR_CHROOT:-} ]]; then
        chroot_tools "$1"
        chroot_require "${@:2}"
        require_cmd "$PYTHON" realpath
    else
        require_cmd "${@:2}" "$PYTHON" realpath
    fi
    setup_user
    prepare_dir "$1"
    if [[ -n ${COMPOSITOR_CHROOT:-} ]]; then chroot_user "$1"; fi
}

start_compositor() {  # NAME DIR LOG COMMAND...
    START_NAME=$1 START_DIR=$2 START_LOG=$3; shift 3
    START_T0=$(now_ms)
    START_DEADLINE=$(( START_T0 + START_TIMEOUT_S * 1000 ))
    START_FAIL=${START_FAIL:-startup_failed}
    export XDG_RUNTIME_DIR=$START_DIR/runtime
    unset WAYLAND_DISPLAY SWAYSOCK
    launch_as "$START_DIR" "$START_LOG" "$START_DIR/compositor.pid" "$START_DIR/supervisor.pid" "$@"
    START_WATCH=("$COMP_PID" "$START_NAME")
}

start_check() {
    local i
    for ((i = 0; i < ${#START_WATCH[@]}; i += 2)); do
        pid_alive "${START_WATCH[i]}" || start_failed "${START_WATCH[i + 1]} exited during startup"
    done
}

start_wait() {  # INTERVAL CONDITION [ARG]...
    POLL_CHECK=start_check POLL_DEADLINE=$START_DEADLINE poll_until "$@"
}

start_failed() { "$START_FAIL" "$1"; }

startup_failed() {  # WHAT
    terminate "$COMP_PID" "$(read_pidfile "$START_DIR/supervisor.pid")"
    die "$1; see $START_LOG: $(grep -v '^\s*$' "$START_LOG" | tail -n 1)"
}

start_done() {  # LABEL KEY VALUE...
    local label=$1; shift
    # a chroot's compositor: its tools first on PATH for every later command (chroot.sh)
    if [[ -n ${COMPOSITOR_CHROOT:-} ]]; then set -- "$@" PATH "$PATH" COMPOSITOR_CHROOT "$COMPOSITOR_CHROOT"; fi
    write_env "$START_DIR" "$@"
    if [[ -n "${COMPOSITOR_TIMING:-}" ]]; then
        printf '%s: %s ready in %d ms\n' "$PROG" "$label" $(( $(now_ms) - START_T0 )) >&2
    fi
}

# conditions for start_wait

# A Wayland socket in $XDG_RUNTIME_DIR (the first; not EXCEPT): sets FOUND_DISPLAY to its name.
FOUND_DISPLAY=""
wayland_socket() {  # [EXCEPT]
    local f
    [[ -z "$FOUND_DISPLAY" ]] || return 0
    for f in "$XDG_RUNTIME_DIR"/wayland-*; do
        [[ -S "$f" && ${f##*/} != "${1:-}" ]] && { FOUND_DISPLAY=${f##*/}; return 0; }
    done
    return 1
}

# $WAYLAND_DISPLAY is listening and offers the global NAME (weston-info; a chroot's wayland-info)
offers_global() {  # NAME
    local info=weston-info
    [[ -n ${COMPOSITOR_CHROOT:-} ]] && info=wayland-info
    [[ -S "$XDG_RUNTIME_DIR/$WAYLAND_DISPLAY" ]] && timeout 5 "$info" 2>/dev/null | grep -q "'$1'"
}

# The size of OUTPUT as grim sees it ("W H"), or nothing (grim cannot capture it yet).
grim_size() {
    timeout 5 grim -t ppm -o "$1" - 2>/dev/null | head -c 64 | tr '\n' ' ' | awk '$1 == "P6" { print $2, $3; exit }'
}

# OUTPUT captures at WxH (sets NOW to what grim got)
captures_at() {  # OUTPUT WxH
    NOW=$(grim_size "$1" || true)
    [[ "$NOW" == "${2%x*} ${2#*x}" ]]
}

# Waits until each output NAME captures at its size in SIZES (the first NAME at SIZES[0] …).
start_wait_captures() {  # NAME...
    local -a names=("$@")
    local i
    for i in "${!names[@]}"; do
        start_wait 0.05 captures_at "${names[i]}" "${SIZES[i]}" \
            || start_failed "output ${names[i]} is '${NOW:-not there}', wanted ${SIZES[i]}"
    done
}

# ---------------------------------------------------------------------------------------------
# DIR/env

env_quote() {
    if [[ "$1" =~ ^[A-Za-z0-9_./:@%+,=-]*$ ]]; then printf '%s' "$1"
    else printf "'%s'" "${1//\'/\'\\\'\'}"; fi
}

write_env() {  # DIR KEY VALUE...
    local dir=$1 tmp; shift
    tmp="$dir/env.tmp"
    : >"$tmp"
    while (($#)); do
        printf '%s=%s\n' "$1" "$(env_quote "$2")" >>"$tmp"
        shift 2
    done
    mv -f "$tmp" "$dir/env"
    cat "$dir/env"
}

load_env() {  # DIR: export the variables of DIR/env
    local dir=$1
    [[ -f "$dir/env" ]] || die "no compositor in $dir (no $dir/env; run start-sway, start-weston or start-nested first)"
    unset SWAYSOCK
    set -a
    # shellcheck disable=SC1091
    . "$dir/env"
    set +a
}

# ---------------------------------------------------------------------------------------------
# commands for any compositor

cmd_stop() {
    (($# == 1)) || usage
    check_dir_arg "$1"; local dir; dir=$(abs_dir "$1")
    [[ -d "$dir" ]] || return 0
    cmd_uncover_dir "$dir"
    local pid=""
    if [[ -f "$dir/inner-supervisor.pid" || -f "$dir/inner.pid" ]]; then
        # nested: the inner sway first (its pids are in inner*.pid), then the outer one below
        terminate_files "$dir" "$dir/inner.pid" "$dir/inner-supervisor.pid" "the inner sway"
        pid=$(read_pidfile "$dir/compositor.pid")
    elif [[ -f "$dir/env" ]]; then
        pid=$(sed -n 's/^COMPOSITOR_PID=//p' "$dir/env" | tr -d "'")
    fi
    terminate_files "$dir" "$dir/compositor.pid" "$dir/supervisor.pid" compositor "$pid"
}

cmd_shot() {
    (($# == 3)) || usage
    check_dir_arg "$1"; local dir; dir=$(abs_dir "$1")
    require_cmd grim
    load_env "$dir"
    pid_is_instance "${COMPOSITOR_PID:-}" "$XDG_RUNTIME_DIR" || die "the compositor in $dir is not running"
    local err rc=0
    err=$(timeout 15 grim -t ppm -o "$2" "$3" 2>&1) || rc=$?
    if ((rc == 124)); then
        die "grim -o $2 got no frame within 15 s"
    elif ((rc != 0)); then
        die "grim -o $2 failed: $(tail -n 1 <<<"$err")"
    fi
}

cmd_uncover_dir() {
    local dir=$1 pid sup
    pid=$(read_pidfile "$dir/cover.pid")
    sup=$(read_pidfile "$dir/cover-supervisor.pid")
    [[ -n "$pid" ]] && ! pid_alive "$pid" && pid=""
    [[ -n "$sup" ]] && ! pid_alive "$sup" && sup=""
    # make sure the pids are ours: the foot child runs with --app-id=wayloop-cover
    if [[ -n "$pid" ]] && ! grep -qzxF -- --app-id=wayloop-cover "/proc/$pid/cmdline" 2>/dev/null; then
        pid=""
    fi
    if [[ -n "$pid" || -n "$sup" ]]; then
        terminate "$pid" "$sup"
    fi
    rm -f -- "$dir/cover.pid" "$dir/cover-supervisor.pid"
}

cmd_uncover() {
    (($# == 1)) || usage
    check_dir_arg "$1"; local dir; dir=$(abs_dir "$1")
    [[ -d "$dir" ]] || return 0
    cmd_uncover_dir "$dir"
}
