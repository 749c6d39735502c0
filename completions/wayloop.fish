# fish completion for wayloop(1) and wayloop ctl (wayloop-ctl(1)).
# Install as $PREFIX/share/fish/vendor_completions.d/wayloop.fish.

# True when the command line is `wayloop ctl` and no ctl command yet.
function __wayloop_ctl_needs_command
    set -l tokens (commandline -opc)
    test (count $tokens) -eq 2; and test "$tokens[2]" = ctl
end

# True when the command line is `wayloop ctl CMD ...` with CMD one of $argv.
function __wayloop_ctl_is
    set -l tokens (commandline -opc)
    test (count $tokens) -ge 3; and test "$tokens[2]" = ctl; and contains -- $tokens[3] $argv
end

# True when the ctl command ($argv) has no argument yet (`wayloop ctl set <TAB>`).
function __wayloop_ctl_first_arg
    set -l tokens (commandline -opc)
    test (count $tokens) -eq 3; and test "$tokens[2]" = ctl; and contains -- $tokens[3] $argv
end

# True when the command line is `wayloop SUB ...` with SUB one of $argv (ctl, thumbnail, decode, prepare, list).
function __wayloop_is
    set -l tokens (commandline -opc)
    test (count $tokens) -ge 2; and contains -- $tokens[2] $argv
end

# True when the command line is `wayloop SUB ...` ($argv[1]) with $argv[2] arguments before the token being completed,
# not counting options and their values (`wayloop thumbnail VIDEO <TAB>`: thumbnail 1).
function __wayloop_sub_args
    set -l tokens (commandline -opc)
    test (count $tokens) -ge 2; and test "$tokens[2]" = $argv[1]; or return 1
    set -l n 0
    set -l skip 0
    for t in $tokens[3..-1]
        if test $skip = 1
            set skip 0
        else if contains -- $t --size --at -m --mode -c --color --dim --hwdec --hwdec-device --frames --queue-frames --cache-mb --threads --max-fps --quality --fit-cache-max
            set skip 1
        else if not string match -q -- '-?*' $t
            set n (math $n + 1)
        end
    end
    test $n = $argv[2]
end

# The DRM render nodes for --hwdec-device (a CUDA device number is typed).
function __wayloop_render_nodes
    for f in /dev/dri/renderD*
        printf '%s\t%s\n' $f 'DRM render node'
    end
end

# The --pause-when rules, after the rules already typed in a comma list (never stands alone).
function __wayloop_pause_whens
    set -l token (commandline -ct)
    set -l pre ''
    string match -q -- '*,*' $token; and set pre (string replace -r -- '[^,]*$' '' $token)
    set -l rules hidden fullscreen fullscreen-anywhere maximized any-window never
    set -l says 'the compositor asks for no frames' 'a fullscreen window on the output' 'a fullscreen window on any output' \
        'a maximized window on the output' 'any window on the workspace the output shows' 'no window pauses it (alone)'
    for i in (seq (count $rules))
        test -n "$pre"; and test $rules[$i] = never; and continue
        printf '%s%s\t%s\n' "$pre" $rules[$i] $says[$i]
    end
end

# Output names of the wayloop running on this display (none, silently, if none runs).
function __wayloop_outputs
    set -l json
    if command -q timeout
        set json (timeout 2 wayloop ctl status --json 2>/dev/null)
    else
        set json (wayloop ctl status --json 2>/dev/null)
    end
    string match -ar '"name":"[^"]*"' -- $json | string replace -r '^"name":"(.*)"$' '$1'
    printf '%s\t%s\n' '*' 'every output'
end

# Directories and video and playlist files (.m3u, .m3u8) for the token being completed, then the names of the videos
# in the wayloop data directories (for a token without a slash).
function __wayloop_videos
    set -l token (commandline -ct)
    set -l files (complete -C "__fish_command_without_completions $token")
    string match -r -- '^.*/$' $files
    string match -ri -- '^[^\t]*\.(?:mp4|m4v|mkv|webm|mov|avi|gif|mpg|mpeg|ts|m2ts|mts|flv|wmv|ogv|3gp|y4m|apng|png|jpg|jpeg|m3u|m3u8)(?:\t.*)?$' $files
    string match -q -- '*/*' $token; and return
    set -l home $XDG_DATA_HOME
    test -n "$home"; or set home $HOME/.local/share
    set -l dirs $XDG_DATA_DIRS
    test -n "$dirs"; or set dirs /usr/local/share:/usr/share
    for dir in $home (string split : -- $dirs)
        for f in $dir/wayloop/*
            test -f $f; or continue
            printf '%s\t%s\n' (string replace -r '\.[^.]*$' '' -- (path basename -- $f)) "video in $dir/wayloop"
        end
    end
end

complete -c wayloop -f

# wayloop [OPTIONS] VIDEO
set -l main 'not __wayloop_is ctl thumbnail decode prepare list'
set -l hwdecs 'auto\t"VA-API, then NVDEC, each once checked against software; else software" no\t"software" vaapi vaapi-copy nvdec-copy'
complete -c wayloop -n $main -s o -l output -x -a '(__wayloop_outputs)' -d 'Apply the options after it to output NAME'
complete -c wayloop -n $main -s i -l video -x -a '(__wayloop_videos)' -d 'The video for the current -o scope'
# -w NAME VIDEO: the name is typed; the video after it completes as any video does.
complete -c wayloop -n $main -s w -l workspace -x -d 'While an output shows workspace NAME, play VIDEO (NAME VIDEO)'
complete -c wayloop -n $main -s m -l mode -x -a 'fill\t"cover the output, crop the long axis" fit\t"whole video, bars" stretch\t"ignore the aspect ratio" center\t"1:1 pixels" tile\t"1:1 pixels, repeated" span\t"one video across the outputs, filled" span-fit\t"one video across the outputs, fitted"' -d 'How the video is placed'
complete -c wayloop -n $main -l interval -x -d 'A playlist switches to its next video every D (30s, 10m, 1h)'
complete -c wayloop -n $main -l loops -x -d 'Passes of each video of a playlist, without --interval'
complete -c wayloop -n $main -l shuffle -d 'A playlist in random order'
complete -c wayloop -n $main -l no-shuffle -d 'A playlist in its order'
complete -c wayloop -n $main -l transition -x -a 'none\t"a cut on a frame boundary" fade\t"fade over 0.5 s" fade:0.5s fade:1s fade:2s' -d 'How a switch looks'
complete -c wayloop -n $main -s c -l color -x -d 'Colour of bars and borders (RRGGBB)'
complete -c wayloop -n $main -l dim -x -d 'Darken the picture by F, 0 to 1'
complete -c wayloop -n $main -s f -l fallback -x -a '(__wayloop_videos)' -d 'Shown when the video cannot be played: RRGGBB or a video'
complete -c wayloop -n $main -l hwdec -x -a $hwdecs -d 'How the video is decoded'
complete -c wayloop -n $main -l hwdec-device -x -a '(__wayloop_render_nodes)' -d 'The decoding device: a render node, or a CUDA device number'
complete -c wayloop -n $main -l fit -x -a 'auto\t"where a copy saves much (default)" always\t"wherever the copy is smaller or cheaper" off\t"every file as it is"' -d 'Play an oversized video from a fitted copy'
complete -c wayloop -n $main -l fit-quality -x -d 'The fitted copies\' x264 CRF, 0 (lossless) to 40 (smallest), default 16'
complete -c wayloop -n $main -l fit-cache-max -x -d 'The fitted copies kept at most (default 2G; 512M, 10G; a bare number is MiB)'
complete -c wayloop -n $main -l config -r -F -d 'The config file'
complete -c wayloop -n $main -l no-config -d 'Read no config file'
complete -c wayloop -n $main -l no-restore -d 'Start without the saved state'
complete -c wayloop -n $main -l replace -d 'Stop the running wayloop and take over'
complete -c wayloop -n $main -l layer -x -a 'background\t"a wallpaper (default)" bottom top overlay\t"above fullscreen windows: a screensaver"' -d 'The layer-shell layer'
complete -c wayloop -n $main -l name -x -d 'An independent instance with its own socket'
complete -c wayloop -n $main -l renderer -x -a 'auto\t"shm where GL would be software, else gl" gl\t"GLES through EGL" shm\t"libswscale into wl_shm buffers"' -d 'How to draw'
complete -c wayloop -n $main -l queue-frames -x -d 'Decoded frames kept ready ahead of the screen'
complete -c wayloop -n $main -l cache-mb -x -d 'Loop cache budget in MiB (0 = off)'
complete -c wayloop -n $main -l keep-recent -x -d 'Videos kept ready for a switch back (0 = off)'
complete -c wayloop -n $main -l trace-frames -r -F -d 'Append one line per presented frame to F'
complete -c wayloop -n $main -l no-fullscreen-pause -d 'Keep drawing under a fullscreen window'
complete -c wayloop -n $main -l pause-when -x -a '(__wayloop_pause_whens)' -d 'What pauses an output (comma-separated rules)'
complete -c wayloop -n $main -l pause-ignore -x -d 'App_ids whose windows no pause rule counts (comma-separated)'
complete -c wayloop -n $main -l pause-on-battery -d 'Pause while running on battery'
complete -c wayloop -n $main -l release-after -x -d 'Free an unseen video\'s decoder after S seconds'
complete -c wayloop -n $main -l max-fps -x -d 'Frames per second at most (0 = no cap)'
complete -c wayloop -n $main -l battery-fps -x -d 'Frames per second at most on battery (0 = no cap)'
complete -c wayloop -n $main -l scaling -x -a 'auto client compositor' -d 'Who scales a video smaller than its output'
complete -c wayloop -n $main -l log-level -x -a 'error notice debug trace' -d 'Log level'
complete -c wayloop -n $main -s v -l verbose -d 'Same as --log-level debug'
complete -c wayloop -n $main -s h -l help -d 'Show the help'
complete -c wayloop -n $main -s V -l version -d 'Show the version'
complete -c wayloop -n '__fish_is_first_arg' -a ctl -d 'Talk to the running wayloop'
complete -c wayloop -n '__fish_is_first_arg' -a thumbnail -d 'Write a still of a video as a PNG'
complete -c wayloop -n '__fish_is_first_arg' -a decode -d 'Decode a video as fast as it goes and say how'
complete -c wayloop -n '__fish_is_first_arg' -a prepare -d 'Make fitted copies of videos, list or empty their cache'
complete -c wayloop -n '__fish_is_first_arg' -a list -d 'The videos wayloop can play, with their facts and previews'
complete -c wayloop -n $main -a '(__wayloop_videos)'

# wayloop thumbnail VIDEO FILE.png [--size WxH] [--at TIME] [-m MODE] [-c RRGGBB] [--dim F] [--hwdec H] [--hwdec-device D]
set -l thumb '__wayloop_is thumbnail'
complete -c wayloop -n '__wayloop_sub_args thumbnail 0' -a '(__wayloop_videos)'
complete -c wayloop -n '__wayloop_sub_args thumbnail 1' -F
complete -c wayloop -n $thumb -l size -x -d 'The size of the output it is placed on (WxH)'
complete -c wayloop -n $thumb -l at -x -d 'How far into the loop (0, 1.5s, 2m)'
complete -c wayloop -n $thumb -s m -l mode -x -a 'fill fit stretch center tile' -d 'How the video is placed'
complete -c wayloop -n $thumb -s c -l color -x -d 'Colour of bars and borders (RRGGBB)'
complete -c wayloop -n $thumb -l dim -x -d 'Darken the picture by F, 0 to 1'
complete -c wayloop -n $thumb -l hwdec -x -a 'auto no vaapi vaapi-copy nvdec-copy' -d 'How the frame is decoded (default no)'
complete -c wayloop -n $thumb -l hwdec-device -x -a '(__wayloop_render_nodes)' -d 'The decoding device'

# wayloop decode VIDEO [--hwdec H] [--hwdec-device D] [--frames N] [--queue-frames N] [--cache-mb N] [--threads N] [--json] [-v]
set -l dec '__wayloop_is decode'
complete -c wayloop -n '__wayloop_sub_args decode 0' -a '(__wayloop_videos)'
complete -c wayloop -n $dec -l hwdec -x -a 'auto no vaapi vaapi-copy nvdec-copy' -d 'How the video is decoded'
complete -c wayloop -n $dec -l hwdec-device -x -a '(__wayloop_render_nodes)' -d 'The decoding device'
complete -c wayloop -n $dec -l frames -x -d 'Frames to decode (default 300)'
complete -c wayloop -n $dec -l queue-frames -x -d 'Decoded frames kept ready ahead (default 8)'
complete -c wayloop -n $dec -l cache-mb -x -d 'Loop cache budget in MiB (default 0 = off)'
complete -c wayloop -n $dec -l threads -x -d 'Software decoding threads (default 1)'
complete -c wayloop -n $dec -l json -d 'Print the report as JSON'
complete -c wayloop -n $dec -s v -d 'The decoder\'s debug lines'

# wayloop prepare VIDEO... [--size WxH] [--max-fps N] [--quality Q] [--always] [--on-battery] [--fit-cache-max SIZE]
#     | prepare --list | prepare --clean
set -l prep '__wayloop_is prepare'
complete -c wayloop -n $prep -a '(__wayloop_videos)'
complete -c wayloop -n $prep -l size -x -d 'The output the copies are for (WxH, default 1920x1080)'
complete -c wayloop -n $prep -l max-fps -x -d 'The frame-rate cap the copies are for'
complete -c wayloop -n $prep -l quality -x -d 'x264 CRF, 0 (lossless) to 40 (smallest), default 16'
complete -c wayloop -n $prep -l always -d 'Make a copy even where the rule finds nothing to gain'
complete -c wayloop -n $prep -l on-battery -d 'Make copies on battery too'
complete -c wayloop -n $prep -l fit-cache-max -x -d 'The cache\'s bound, least recently used out (default 2G; 512M, 10G)'
complete -c wayloop -n $prep -l list -d 'List the fitted copies in the cache'
complete -c wayloop -n $prep -l clean -d 'Empty the cache'

# wayloop list [PATH...] [--json] [--previews] [--no-workshop]
set -l lst '__wayloop_is list'
complete -c wayloop -n $lst -F
complete -c wayloop -n $lst -l json -d 'One JSON document (version 1)'
complete -c wayloop -n $lst -l previews -d 'Make the missing thumbnails and previews first'
complete -c wayloop -n $lst -l no-workshop -d 'Leave Wallpaper Engine\'s workshop folders out'

# wayloop ctl COMMAND
complete -c wayloop -n __wayloop_ctl_needs_command -a status -d 'State of every output'
complete -c wayloop -n __wayloop_ctl_needs_command -a pause -d 'Pause every output, or one'
complete -c wayloop -n __wayloop_ctl_needs_command -a resume -d 'Resume every output, or one'
complete -c wayloop -n __wayloop_ctl_needs_command -a toggle -d 'Toggle a pause of every output, or one'
complete -c wayloop -n __wayloop_ctl_needs_command -a next -d 'The next video of a playlist'
complete -c wayloop -n __wayloop_ctl_needs_command -a prev -d 'The previous video of a playlist'
complete -c wayloop -n __wayloop_ctl_needs_command -a set -d 'Switch video or settings at run time'
complete -c wayloop -n __wayloop_ctl_needs_command -a forget -d 'Drop what set chose (one output, or all)'
complete -c wayloop -n __wayloop_ctl_needs_command -a snapshot -d 'Write what an output shows as a PNG'
complete -c wayloop -n __wayloop_ctl_needs_command -a reload -d 'Read the config file again'
complete -c wayloop -n __wayloop_ctl_needs_command -a quit -d 'Stop wayloop'
complete -c wayloop -n __wayloop_ctl_needs_command -a subscribe -d 'One JSON line per state change'

complete -c wayloop -n '__wayloop_ctl_is status' -l json -d 'Print the reply as JSON'
complete -c wayloop -n '__wayloop_ctl_is subscribe' -l waybar -d 'Waybar custom-module JSON'
complete -c wayloop -n '__wayloop_ctl_first_arg pause resume toggle next prev set forget snapshot' -a '(__wayloop_outputs)'
set -l set_opts '__wayloop_ctl_is set; and not __wayloop_ctl_first_arg set'
complete -c wayloop -n $set_opts -s w -l workspace -x -d 'Only while the output shows workspace NAME'
complete -c wayloop -n $set_opts -s m -l mode -x -a 'fill fit stretch center tile span span-fit' -d 'How the video is placed'
complete -c wayloop -n $set_opts -s c -l color -x -d 'Colour of bars and borders (RRGGBB)'
complete -c wayloop -n $set_opts -l dim -x -d 'Darken the picture by F, 0 to 1'
complete -c wayloop -n $set_opts -s f -l fallback -x -a '(__wayloop_videos)' -d 'RRGGBB or a video'
complete -c wayloop -n $set_opts -l transition -x -a 'none fade fade:0.5s fade:1s fade:2s' -d 'How this switch looks'
complete -c wayloop -n $set_opts -l interval -x -d 'A playlist switches every D (30s, 10m, 1h)'
complete -c wayloop -n $set_opts -l loops -x -d 'Passes of each video of a playlist'
complete -c wayloop -n $set_opts -l max-fps -x -d 'Frames per second at most (0 = no cap)'
complete -c wayloop -n $set_opts -l battery-fps -x -d 'Frames per second at most on battery (0 = no cap)'
complete -c wayloop -n $set_opts -l scaling -x -a 'auto client compositor' -d 'Who scales a video smaller than its output'
complete -c wayloop -n $set_opts -l hwdec -x -a 'auto no vaapi vaapi-copy nvdec-copy' -d 'How the video is decoded'
complete -c wayloop -n $set_opts -l hwdec-device -x -a '(__wayloop_render_nodes)' -d 'The decoding device'
complete -c wayloop -n $set_opts -l fit -x -a 'auto always off' -d 'Play an oversized video from a fitted copy'
complete -c wayloop -n $set_opts -l pause-when -x -a '(__wayloop_pause_whens)' -d 'What pauses the output (comma-separated rules)'
complete -c wayloop -n $set_opts -l pause-ignore -x -d 'App_ids whose windows no pause rule counts (comma-separated)'
complete -c wayloop -n $set_opts -l shuffle -d 'A playlist in random order'
complete -c wayloop -n $set_opts -l no-shuffle -d 'A playlist in its order'
complete -c wayloop -n $set_opts -a '(__wayloop_videos)'
