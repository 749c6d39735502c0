# fish completion for wayloop(1) and wayloop ctl (wayloop-ctl(1)).
# Install as $PREFIX/share/fish/vendor_completions.d/wayloop.fish.

# True when the command line is `wayloop ctl ...`.
function __wayloop_is_ctl
    set -l tokens (commandline -opc)
    test (count $tokens) -ge 2; and test "$tokens[2]" = ctl
end

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
    string match -ri -- '^[^\t]*\.(mp4|m4v|mkv|webm|mov|avi|gif|mpg|mpeg|ts|m2ts|mts|flv|wmv|ogv|3gp|y4m|apng|png|jpg|jpeg|m3u|m3u8)(\t.*)?$' $files
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
set -l main 'not __wayloop_is_ctl'
complete -c wayloop -n $main -s o -l output -x -a '(__wayloop_outputs)' -d 'Apply the options after it to output NAME'
complete -c wayloop -n $main -s i -l video -x -a '(__wayloop_videos)' -d 'The video for the current -o scope'
complete -c wayloop -n $main -s m -l mode -x -a 'fill\t"cover the output, crop the long axis" fit\t"whole video, bars" stretch\t"ignore the aspect ratio" center\t"1:1 pixels" tile\t"1:1 pixels, repeated" span\t"one video across the outputs, filled" span-fit\t"one video across the outputs, fitted"' -d 'How the video is placed'
complete -c wayloop -n $main -l interval -x -d 'A playlist switches to its next video every D (30s, 10m, 1h)'
complete -c wayloop -n $main -l loops -x -d 'Passes of each video of a playlist, without --interval'
complete -c wayloop -n $main -l shuffle -d 'A playlist in random order'
complete -c wayloop -n $main -l no-shuffle -d 'A playlist in its order'
complete -c wayloop -n $main -l transition -x -a 'none\t"a cut on a frame boundary" fade\t"fade over 0.5 s" fade:0.5s fade:1s fade:2s' -d 'How a switch looks'
complete -c wayloop -n $main -s c -l color -x -d 'Colour of bars and borders (RRGGBB)'
complete -c wayloop -n $main -l dim -x -d 'Darken the picture by F, 0 to 1'
complete -c wayloop -n $main -s f -l fallback -x -a '(__wayloop_videos)' -d 'Shown when the video cannot be played: RRGGBB or a video'
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
complete -c wayloop -n $main -a '(__wayloop_videos)'

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
complete -c wayloop -n $set_opts -l shuffle -d 'A playlist in random order'
complete -c wayloop -n $set_opts -l no-shuffle -d 'A playlist in its order'
complete -c wayloop -n $set_opts -a '(__wayloop_videos)'
