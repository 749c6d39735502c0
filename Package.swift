// swift-tools-version:6.0
// WayLoop: a looping video on the background layer of every wlroots output.
//
// Modules (house style: pure core, C at the leaves, a thin shell):
//   WayLoopCore  pure Swift, no C: options, placement math, timing, queue, colour, logging
//   CWayland     committed wayland-scanner output + shims Swift cannot import (scripts/generate-protocols)
//   CSystem      glibc/Linux calls the Glibc module does not export (_GNU_SOURCE, <malloc.h>)
//   CFFmpeg      system library: libavformat/libavcodec/libavutil/libswscale + macro shims
//   Shaders      GLSL as Swift string constants
//   WayLoop      the executable: event loop, Wayland objects, EGL/GLES renderer, decoder threads
import PackageDescription

let package = Package(
    name: "WayLoop",
    products: [
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
        .executableTarget(
            name: "WayLoop",
            dependencies: ["WayLoopCore", "Shaders", "CWayland", "CSystem", "CFFmpeg"]
        ),
        .testTarget(name: "WayLoopCoreTests", dependencies: ["WayLoopCore"]),
        .testTarget(name: "WayLoopE2ETests", dependencies: ["WayLoopCore"]),
    ]
)
