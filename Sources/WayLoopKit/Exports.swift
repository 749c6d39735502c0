// A user of the library imports WayLoopKit and nothing else. The pure core's values that its
// API speaks are re-exported one by one, so that its surface is what is listed here (the core's
// other public declarations are for the library's own use and for the core's tests; what only
// the `wayloop` command needs, its parser, help and subcommands, is `package`: the executable
// in this package reaches it, a program that embeds WayLoopKit does not).

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
@_exported import enum WayLoopCore.FitMode
@_exported import enum WayLoopCore.RendererKind
@_exported import struct WayLoopCore.Size

// What it says while it runs: states, status and errors.
@_exported import struct WayLoopCore.StateEvent
@_exported import enum WayLoopCore.VideoPlayerState
@_exported import enum WayLoopCore.PauseReason
@_exported import enum WayLoopCore.FailureKind
@_exported import struct WayLoopCore.OutputStatus
@_exported import struct WayLoopCore.SurfaceStatus
@_exported import struct WayLoopCore.SurfaceStats
@_exported import struct WayLoopCore.PlaylistStatus
@_exported import struct WayLoopCore.FitStatus
@_exported import struct WayLoopCore.FrameCosts
@_exported import struct WayLoopCore.StageCost
@_exported import enum WayLoopCore.VideoError
@_exported import enum WayLoopCore.ExitStatus
@_exported import struct WayLoopCore.Logger
@_exported import enum WayLoopCore.LogLevel

// What a client of a running wallpaper, or its host, asks of it (WallpaperControl, Wallpaper.send).
@_exported import enum WayLoopCore.ControlRequest
