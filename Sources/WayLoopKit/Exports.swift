// A user of the library imports WayLoopKit and nothing else. The pure core's values that its
// API speaks are re-exported one by one, so that its surface is what is listed here (the core's
// other public declarations are for the library's own use and for the core's tests).

// What a wallpaper shows: the configuration, as the command line and config file say it.
@_exported import struct WayLoopCore.Options
@_exported import struct WayLoopCore.OutputEntry
@_exported import enum WayLoopCore.OutputSelector
@_exported import enum WayLoopCore.ScaleMode
@_exported import struct WayLoopCore.RGB
@_exported import enum WayLoopCore.Fallback
@_exported import enum WayLoopCore.Transition
@_exported import enum WayLoopCore.Layer
@_exported import enum WayLoopCore.RendererRequest
@_exported import enum WayLoopCore.HwdecMode
@_exported import enum WayLoopCore.CompositorScaling
@_exported import struct WayLoopCore.Orientation

// What it says while it runs: states, status and errors.
@_exported import struct WayLoopCore.StateEvent
@_exported import enum WayLoopCore.VideoPlayerState
@_exported import enum WayLoopCore.PauseReason
@_exported import enum WayLoopCore.FailureKind
@_exported import struct WayLoopCore.OutputStatus
@_exported import struct WayLoopCore.SurfaceStatus
@_exported import struct WayLoopCore.PlaylistStatus
@_exported import struct WayLoopCore.FrameCosts
@_exported import struct WayLoopCore.StageCost
@_exported import enum WayLoopCore.VideoError
@_exported import enum WayLoopCore.ExitStatus
@_exported import struct WayLoopCore.Logger
@_exported import enum WayLoopCore.LogLevel

// The `wayloop` command's own language: its parser, its subcommands and its help.
@_exported import enum WayLoopCore.OptionParser
@_exported import enum WayLoopCore.Command
@_exported import enum WayLoopCore.UsageError
@_exported import enum WayLoopCore.Help
@_exported import struct WayLoopCore.CtlCommand
@_exported import struct WayLoopCore.ThumbnailCommand
@_exported import struct WayLoopCore.DecodeCommand
@_exported import struct WayLoopCore.PrepareCommand

// What a client of a running wallpaper sends (WallpaperControl), and how `ctl` prints replies.
@_exported import enum WayLoopCore.ControlRequest
@_exported import enum WayLoopCore.Waybar
@_exported import enum WayLoopCore.LineText
