// swift-tools-version:6.0
// WayLoopKit's examples, each a program of its own that depends on the library by path, as a
// program of yours would (`.package(url: …)` once it is published).
import Foundation
import PackageDescription

// A path dependency's identity is its directory's name, lowercased: the checkout's, whatever
// it is called here (yours would say `package: "wayloop"`).
let wayloop = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().lastPathComponent.lowercased()

let package = Package(
    name: "WayLoopExamples",
    dependencies: [.package(path: "..")],
    targets: [
        // A looping video wallpaper on every output, in three lines.
        .executableTarget(name: "Wallpaper", dependencies: [.product(name: "WayLoopKit", package: wayloop)]),
        // A host that follows its wallpaper's states, asks for its status and stops it.
        .executableTarget(name: "HostControl", dependencies: [.product(name: "WayLoopKit", package: wayloop)]),
        // A host's own layer surface (top layer, 320x180) with a VideoView drawing into it.
        .executableTarget(name: "Backdrop", dependencies: [.product(name: "WayLoopKit", package: wayloop),
                                                         .product(name: "WayLoopWayland", package: wayloop)]),
        // Frames only: one loop as a grid of thumbnails in a PNG, without a compositor.
        .executableTarget(name: "ContactSheet", dependencies: [.product(name: "WayLoopKit", package: wayloop)]),
    ]
)
