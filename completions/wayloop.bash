# bash completion for wayloop(1) and wayloop ctl (wayloop-ctl(1)).
# Install as $PREFIX/share/bash-completion/completions/wayloop.

_wayloop_modes='fill fit stretch center tile span span-fit'
_wayloop_transitions='none fade fade:0.5s fade:1s fade:2s'
_wayloop_hwdecs='auto no vaapi vaapi-copy nvdec-copy'
_wayloop_fits='auto always off'
_wayloop_pause_whens='hidden fullscreen fullscreen-anywhere maximized any-window never'
_wayloop_options='-o --output -i --video -w --workspace -m --mode --interval --loops --shuffle --no-shuffle --transition
    -c --color --dim -f --fallback --max-fps --battery-fps --scaling
    --hwdec --hwdec-device --fit --fit-quality --fit-cache-max --config --no-config --no-restore --replace --layer --name --renderer --queue-frames --cache-mb --keep-recent
    --trace-frames --no-fullscreen-pause --pause-when --pause-ignore --pause-on-battery --release-after
    --log-level -v --verbose -h --help -V --version'
_wayloop_ctl_commands='status pause resume toggle next prev set forget snapshot reload quit subscribe'
# Playlist files too (.m3u, .m3u8; not .txt, which is mostly something else).
_wayloop_video_exts=(mp4 m4v mkv webm mov avi gif mpg mpeg ts m2ts mts flv wmv ogv 3gp y4m apng png jpg jpeg m3u m3u8)

# Output names of the wayloop running on this display (none, silently, if none runs).
_wayloop_outputs() {
    local json
    if type -P timeout >/dev/null; then
        json=$(timeout 2 wayloop ctl status --json 2>/dev/null)
    else
        json=$(wayloop ctl status --json 2>/dev/null)
    fi
    [[ -n $json ]] || return 0
    printf '%s\n' "$json" | grep -o '"name":"[^"]*"' | sed 's/^"name":"//; s/"$//'
}

# COMPREPLY += output names matching $cur, and '*'.
_wayloop_add_outputs() {
    local IFS=$'\n' o
    for o in $(_wayloop_outputs) '*'; do
        [[ $o == "$cur"* ]] && COMPREPLY+=("$o")
    done
}

# COMPREPLY += directories (playlists), video and playlist files matching $cur, and (for a word without a slash)
# the names of the videos in the wayloop data directories.
_wayloop_add_videos() {
    local IFS=$'\n' f ext dir
    compopt -o filenames 2>/dev/null
    for f in $(compgen -f -- "$cur"); do
        if [[ -d $f ]]; then
            COMPREPLY+=("$f")
            continue
        fi
        for ext in "${_wayloop_video_exts[@]}"; do
            if [[ ${f,,} == *."$ext" ]]; then
                COMPREPLY+=("$f")
                break
            fi
        done
    done
    [[ $cur == */* ]] && return 0
    local -a dirs
    IFS=: read -r -a dirs <<<"${XDG_DATA_HOME:-$HOME/.local/share}:${XDG_DATA_DIRS:-/usr/local/share:/usr/share}"
    for dir in "${dirs[@]}"; do
        [[ -d $dir/wayloop ]] || continue
        for f in "$dir"/wayloop/"$cur"*; do
            [[ -f $f ]] || continue
            f=${f##*/}
            f=${f%.*}
            [[ -n $f ]] && COMPREPLY+=("$f")
        done
    done
}

# COMPREPLY += the DRM render nodes (/dev/dri/renderD*) matching $cur; a CUDA device number is typed.
_wayloop_add_render_nodes() {
    local f
    for f in /dev/dri/renderD*; do
        [[ -e $f && $f == "$cur"* ]] && COMPREPLY+=("$f")
    done
}

# COMPREPLY += the --pause-when rules matching the last word of a comma list in $cur (never stands alone).
_wayloop_add_pause_whens() {
    local w pre= last=$cur
    if [[ $cur == *,* ]]; then
        pre=${cur%,*},
        last=${cur##*,}
    fi
    for w in $_wayloop_pause_whens; do
        [[ $w == never && -n $pre ]] && continue
        [[ $w == "$last"* ]] && COMPREPLY+=("$pre$w")
    done
}

_wayloop_add_words() {
    local IFS=$' \t\n'
    COMPREPLY+=($(compgen -W "$1" -- "$cur"))
}

_wayloop_ctl() {
    # COMP_WORDS[1] is "ctl"; COMP_WORDS[2] the ctl command.
    if ((COMP_CWORD == 2)); then
        _wayloop_add_words "$_wayloop_ctl_commands"
        return 0
    fi
    case ${COMP_WORDS[2]} in
    status)
        _wayloop_add_words '--json'
        ;;
    subscribe)
        _wayloop_add_words '--waybar'
        ;;
    pause | resume | toggle | next | prev | forget)
        ((COMP_CWORD == 3)) && _wayloop_add_outputs
        ;;
    snapshot)
        ((COMP_CWORD == 3)) && _wayloop_add_outputs
        local IFS=$'\n'
        COMPREPLY+=($(compgen -f -- "$cur"))
        ;;
    set)
        if ((COMP_CWORD == 3)); then
            _wayloop_add_outputs
            return 0
        fi
        case $prev in
        -m | --mode) _wayloop_add_words "$_wayloop_modes" ;;
        --transition) _wayloop_add_words "$_wayloop_transitions" ;;
        --scaling) _wayloop_add_words 'auto client compositor' ;;
        --hwdec) _wayloop_add_words "$_wayloop_hwdecs" ;;
        --hwdec-device) _wayloop_add_render_nodes ;;
        --fit) _wayloop_add_words "$_wayloop_fits" ;;
        --pause-when) _wayloop_add_pause_whens ;;
        -w | --workspace | -c | --color | --dim | --interval | --loops | --max-fps | --battery-fps | --pause-ignore) ;;
        -f | --fallback) _wayloop_add_videos ;;
        *)
            if [[ $cur == -* ]]; then
                _wayloop_add_words '-w --workspace -m --mode -c --color --dim -f --fallback --transition --interval --loops --shuffle --no-shuffle --max-fps --battery-fps --scaling --hwdec --hwdec-device --fit --pause-when --pause-ignore'
            else
                _wayloop_add_videos
            fi
            ;;
        esac
        ;;
    esac
    return 0
}

_wayloop() {
    local cur=${COMP_WORDS[COMP_CWORD]} prev=
    ((COMP_CWORD > 0)) && prev=${COMP_WORDS[COMP_CWORD - 1]}
    COMPREPLY=()

    if ((COMP_CWORD >= 2)) && [[ ${COMP_WORDS[1]} == ctl ]]; then
        _wayloop_ctl
        return 0
    fi
    # wayloop thumbnail VIDEO FILE.png [--size WxH] [--at TIME] [-m MODE] [-c RRGGBB] [--dim F] [--hwdec H] [--hwdec-device D]
    if ((COMP_CWORD >= 2)) && [[ ${COMP_WORDS[1]} == thumbnail ]]; then
        case $prev in
        -m | --mode) _wayloop_add_words 'fill fit stretch center tile' ;;
        --hwdec) _wayloop_add_words "$_wayloop_hwdecs" ;;
        --hwdec-device) _wayloop_add_render_nodes ;;
        --size | --at | -c | --color | --dim) ;;
        *)
            if [[ $cur == -* ]]; then
                _wayloop_add_words '--size --at -m --mode -c --color --dim --hwdec --hwdec-device'
            elif ((COMP_CWORD == 2)); then
                _wayloop_add_videos
            else
                local IFS=$'\n'
                COMPREPLY+=($(compgen -f -- "$cur"))
            fi
            ;;
        esac
        return 0
    fi
    # wayloop prepare VIDEO... [--size WxH] [--max-fps N] [--quality Q] [--always] [--on-battery] [--fit-cache-max SIZE]
    #                 | --list | --clean
    if ((COMP_CWORD >= 2)) && [[ ${COMP_WORDS[1]} == prepare ]]; then
        case $prev in
        --size | --max-fps | --quality | --fit-cache-max) ;;
        *)
            if [[ $cur == -* ]]; then
                _wayloop_add_words '--size --max-fps --quality --always --on-battery --fit-cache-max --list --clean'
            else
                _wayloop_add_videos
            fi
            ;;
        esac
        return 0
    fi
    # wayloop list [PATH...] [--json] [--previews] [--no-workshop]
    if ((COMP_CWORD >= 2)) && [[ ${COMP_WORDS[1]} == list ]]; then
        if [[ $cur == -* ]]; then
            _wayloop_add_words '--json --previews --no-workshop'
        else
            local IFS=$'\n'
            COMPREPLY+=($(compgen -f -- "$cur"))
        fi
        return 0
    fi
    # wayloop decode VIDEO [--hwdec H] [--hwdec-device D] [--frames N] [--queue-frames N] [--cache-mb N] [--threads N]
    #                [--json] [-v]
    if ((COMP_CWORD >= 2)) && [[ ${COMP_WORDS[1]} == decode ]]; then
        local decode_options='--hwdec --hwdec-device --frames --queue-frames --cache-mb --threads --json -v'
        case $prev in
        --hwdec) _wayloop_add_words "$_wayloop_hwdecs" ;;
        --hwdec-device) _wayloop_add_render_nodes ;;
        --frames | --queue-frames | --cache-mb | --threads) ;;
        *)
            # The video first (a word that is neither an option nor an option's value), then the options.
            local i video=
            for ((i = 2; i < COMP_CWORD; i++)); do
                case ${COMP_WORDS[i]} in
                --hwdec | --hwdec-device | --frames | --queue-frames | --cache-mb | --threads) ((i++)) ;;
                -*) ;;
                *) video=${COMP_WORDS[i]} ;;
                esac
            done
            if [[ $cur == -* || -n $video ]]; then
                _wayloop_add_words "$decode_options"
            else
                _wayloop_add_videos
            fi
            ;;
        esac
        return 0
    fi

    local i
    for ((i = 1; i < COMP_CWORD; i++)); do
        if [[ ${COMP_WORDS[i]} == -- ]]; then
            _wayloop_add_videos
            return 0
        fi
    done

    # -w NAME VIDEO: the name is typed, the video completes like -i's.
    if ((COMP_CWORD >= 3)) && [[ ${COMP_WORDS[COMP_CWORD - 2]} == -w || ${COMP_WORDS[COMP_CWORD - 2]} == --workspace ]]; then
        _wayloop_add_videos
        return 0
    fi
    case $prev in
    -w | --workspace)
        return 0
        ;;
    -m | --mode)
        _wayloop_add_words "$_wayloop_modes"
        return 0
        ;;
    --transition)
        _wayloop_add_words "$_wayloop_transitions"
        return 0
        ;;
    --renderer)
        _wayloop_add_words 'auto gl shm'
        return 0
        ;;
    --layer)
        _wayloop_add_words 'background bottom top overlay'
        return 0
        ;;
    --name)
        return 0
        ;;
    --log-level)
        _wayloop_add_words 'error notice debug trace'
        return 0
        ;;
    -o | --output)
        _wayloop_add_outputs
        return 0
        ;;
    -i | --video | --image | -f | --fallback)
        _wayloop_add_videos
        return 0
        ;;
    --config | --trace-frames)
        compopt -o filenames 2>/dev/null
        local IFS=$'\n'
        COMPREPLY=($(compgen -f -- "$cur"))
        return 0
        ;;
    --hwdec)
        _wayloop_add_words "$_wayloop_hwdecs"
        return 0
        ;;
    --hwdec-device)
        _wayloop_add_render_nodes
        return 0
        ;;
    --fit)
        _wayloop_add_words "$_wayloop_fits"
        return 0
        ;;
    --pause-when)
        _wayloop_add_pause_whens
        return 0
        ;;
    -c | --color | --dim | --interval | --loops | --max-fps | --battery-fps | --queue-frames | --cache-mb | --keep-recent | --release-after | --fit-quality | --fit-cache-max | --pause-ignore)
        return 0
        ;;
    esac

    if [[ $cur == -* ]]; then
        _wayloop_add_words "$_wayloop_options"
        return 0
    fi
    ((COMP_CWORD == 1)) && _wayloop_add_words 'ctl thumbnail decode prepare list'
    _wayloop_add_videos
    return 0
}

complete -F _wayloop wayloop
