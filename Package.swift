// swift-tools-version:6.0
// WayLoop: a looping video on the background layer of every wlroots output.
//
// Modules (house style: pure core, C at the leaves, a thin shell):
//   WayLoopCore  pure Swift, no C, in five folders: Settings (options, config file, layers, state
//                file), Policy (the director and every decision with a table), Geometry, Timing,
//                Protocol (control, status, help); logging
//   CWayland     committed wayland-scanner output + shims Swift cannot import (scripts/generate-protocols)
//   CSystem      glibc/Linux calls the Glibc module does not export (_GNU_SOURCE, <malloc.h>)
//   CFFmpeg      system library: libavformat/libavcodec/libavutil/libswscale + macro shims
//   Shaders      GLSL as Swift string constants
//   WayLoopKit   the library: event loop, Wayland objects, EGL/GLES and wl_shm renderers,
//                decoder threads; what other programs embed (import WayLoopKit and nothing else)
//   WayLoop      the `wayloop` executable: WayLoopKit's first client, through its public API only
// Tests: WayLoopCoreTests (tables, no compositor), WayLoopE2ETests (real compositors and clips),
// WayLoopDocsTests (man pages and completions against the binary), WayLoopKitTests (the library's
// frames in process; and, @testable, the Hyprland and niri IPC clients on stand-in sockets),
// WayLoopTestSupport (shared).
import PackageDescription

let package = Package(
    name: "WayLoop",
    products: [
        .library(name: "WayLoopKit", targets: ["WayLoopKit"]),
        // The Wayland protocol code WayLoopKit is built with (wayland-client, wlr-layer-shell,
        // xdg-shell, viewporter, …), for a host that makes its own surfaces for a VideoView:
        // one copy of each protocol's symbols in the program, not two.
        .library(name: "WayLoopWayland", targets: ["CWayland"]),
        .executable(name: "wayloop", targets: ["WayLoop"]),
    ],
    targets: [
        .target(name: "WayLoopCore"),
        .target(name: "Shaders"),
        .target(name: "CSystem"),
        .target(
            name: "CWayland",
            linkerSettings: [
                .linkedLibrary("wayland-client"),
                .linkedLibrary("wayland-egl"),
                .linkedLibrary("EGL"),
                .linkedLibrary("GLESv2"),
            ]
        ),
        .systemLibrary(
            name: "CFFmpeg",
            pkgConfig: "libavformat libavcodec libavutil libswscale",
            providers: [
                .apt(["libavformat-dev", "libavcodec-dev", "libavutil-dev", "libswscale-dev"]),
            ]
        ),
        .target(
            name: "WayLoopKit",
            dependencies: ["WayLoopCore", "Shaders", "CWayland", "CSystem", "CFFmpeg"]
        ),
        .executableTarget(name: "WayLoop", dependencies: ["WayLoopKit", "WayLoopCore"]),
        .testTarget(name: "WayLoopCoreTests", dependencies: ["WayLoopCore"]),
        // No tests of its own: the repository's paths, running commands and waiting, for the two below.
        .testTarget(name: "WayLoopTestSupport"),
        .testTarget(name: "WayLoopE2ETests", dependencies: ["WayLoopCore", "WayLoopTestSupport"]),
        // The man pages and shell completions against the binary: no compositor.
        .testTarget(name: "WayLoopDocsTests", dependencies: ["WayLoopTestSupport"]),
        // WayLoopKit's frames-only API in this process, through its public API: no compositor.
        .testTarget(name: "WayLoopKitTests", dependencies: ["WayLoopKit", "WayLoopTestSupport"]),
    ]
)
