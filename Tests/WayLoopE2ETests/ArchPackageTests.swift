// The Arch Linux packages (packaging/arch), as scripts/package-arch builds them with makepkg in the
// sid chroot (scripts/test runs it beside the builds, into .build/arch, and names that directory
// in $WAYLOOP_ARCH_PACKAGES). What they show:
//   - both packages (wayloop from source, wayloop-bin from the static release build) hold exactly
//     packaging/install-manifest, and say what they are and need (.PKGINFO): the version the
//     program says, -bin providing and conflicting with wayloop, and -bin's bounds on ffmpeg those
//     of the FFmpeg its binary was built against (the chroot's: FFmpeg 9, libavcodec.so.63);
//   - -bin's binary is the source package's, byte for byte; what goes to the AUR (PKGBUILD and
//     .SRCINFO) names the tarballs' true sums;
//   - the source build, linked against FFmpeg 9 rather than the host's 5.1, plays: run in the
//     chroot on headless sway 1.12, it shows the clip on screen and presents one frame after another.
// Without $WAYLOOP_ARCH_PACKAGES and without .build/arch, skipped with that reason (a by-hand
// `swift test`); in the test command a missing package is a failure.
import Foundation
import WayLoopCore
import WayLoopTestSupport
import XCTest

final class ArchPackageTests: XCTestCase {
    private static let testUser = "wayloop-test"
    private static let colour = RGB8(0x20, 0xb0, 0x60)
    private var version: String { String(Help.version.dropFirst("wayloop ".count)) }

    /// The directory scripts/package-arch wrote.
    private func packages() throws -> String {
        let env = ProcessInfo.processInfo.environment["WAYLOOP_ARCH_PACKAGES"]
        let dir = env ?? Repo.path(".build/arch")
        if env == nil, !FileManager.default.fileExists(atPath: dir) {
            throw XCTSkip("no Arch packages at \(dir): scripts/package-arch makes them (scripts/test runs it)")
        }
        return dir
    }

    private func package(_ name: String) throws -> String {
        let dir = try packages()
        let file = ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? [])
            .first { $0.hasPrefix("\(name)-\(version)-1-x86_64.pkg.tar.") }
        guard let file else {
            throw HarnessError("no \(name) \(version) package in \(dir): scripts/package-arch did not make it (its output, and \(dir)/build.log, say why)")
        }
        return dir + "/" + file
    }

    /// The package's .PKGINFO as (key, value) lines.
    private func info(_ pkg: String) throws -> [(String, String)] {
        let r = Shell.run(["tar", "-xOf", pkg, ".PKGINFO"], timeout: 30)
        guard r.status == 0 else { throw HarnessError("cannot read .PKGINFO of \(pkg): \(r.stderr)") }
        return r.stdout.split(separator: "\n").compactMap { line in
            guard !line.hasPrefix("#"), let eq = line.range(of: " = ") else { return nil }
            return (String(line[..<eq.lowerBound]), String(line[eq.upperBound...]))
        }
    }

    private func values(_ info: [(String, String)], _ key: String) -> [String] { info.filter { $0.0 == key }.map(\.1) }

    private func sid() throws -> String {
        guard Shell.run([Repo.path("scripts/chroots"), "check", "sid"], timeout: 30).status == 0 else {
            throw HarnessError("the sid chroot is not made (scripts/chroots make sid): the packages were built there")
        }
        return Shell.run([Repo.path("scripts/chroots"), "path", "sid"], timeout: 10).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func testBothPackagesHoldTheManifestAndSayWhatTheyNeed() throws {
        let manifest = try String(contentsOfFile: Repo.path("packaging/install-manifest"), encoding: .utf8)
            .split(separator: "\n").map { "usr/" + $0 + ($0.hasPrefix("share/man/") ? ".gz" : "") }.sorted()
        XCTAssertFalse(manifest.isEmpty)
        var binaries: [String: String] = [:]
        for name in ["wayloop", "wayloop-bin"] {
            let pkg = try package(name)
            let list = Shell.run(["tar", "-tf", pkg], timeout: 30)
            XCTAssertEqual(list.status, 0, list.stderr)
            let files = list.stdout.split(separator: "\n").map(String.init)
                .filter { !$0.hasSuffix("/") && ![".PKGINFO", ".BUILDINFO", ".MTREE"].contains($0) }.sorted()
            XCTAssertEqual(files, manifest, "\(name): its files against packaging/install-manifest")

            let i = try info(pkg)
            XCTAssertEqual(values(i, "pkgname"), [name])
            XCTAssertEqual(values(i, "pkgver"), ["\(version)-1"], "\(name): the version the program says")
            for need in ["wayland", "libglvnd", "gcc-libs", "glibc"] {
                XCTAssertTrue(values(i, "depend").contains(need), "\(name) does not depend on \(need): \(values(i, "depend"))")
            }
            binaries[name] = Shell.run(["bash", "-c", "tar -xOf \"$0\" usr/bin/wayloop | sha256sum", pkg], timeout: 30).stdout
        }
        let source = try info(try package("wayloop")), bin = try info(try package("wayloop-bin"))
        XCTAssertTrue(values(source, "depend").contains("ffmpeg"), "\(values(source, "depend"))")
        XCTAssertEqual(values(bin, "provides"), ["wayloop=\(version)"])
        XCTAssertEqual(values(bin, "conflict"), ["wayloop"])
        XCTAssertEqual(binaries["wayloop"], binaries["wayloop-bin"], "wayloop-bin's binary is not the source package's")

        // -bin's bounds on ffmpeg: those of the FFmpeg the binary links (the chroot's).
        let root = try sid()
        let tmp = FileManager.default.temporaryDirectory.appendingPathComponent("arch-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: tmp, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: tmp) }
        XCTAssertEqual(Shell.run(["tar", "-xf", try package("wayloop-bin"), "-C", tmp, "usr/bin/wayloop"], timeout: 30).status, 0)
        let needed = Shell.run(["readelf", "-d", tmp + "/usr/bin/wayloop"], timeout: 30).stdout
        let chrootCodec = Shell.run(["chroot", root, "dpkg-query", "-W", "-f=${Version}", "libavcodec-dev"], timeout: 30).stdout
        // 7:9.0.2-4 -> 9
        let major = try XCTUnwrap(Int(chrootCodec.split(separator: ":").last?.split(separator: ".").first ?? ""),
                                  "cannot read the chroot's FFmpeg version from '\(chrootCodec)'")
        let soname = try XCTUnwrap(((try? FileManager.default.contentsOfDirectory(atPath: root + "/usr/lib/x86_64-linux-gnu")) ?? [])
            .first { $0.hasPrefix("libavcodec.so.") && $0.split(separator: ".").count == 3 }, "no libavcodec.so.N in the chroot")
        XCTAssertTrue(needed.contains("[\(soname)]"), "the packaged binary does not link the chroot's \(soname): \(needed)")
        XCTAssertFalse(needed.contains("libswift"), "the packaged binary links a Swift library dynamically")
        XCTAssertEqual(values(bin, "depend").filter { $0.hasPrefix("ffmpeg") }, ["ffmpeg>=2:\(major)", "ffmpeg<2:\(major + 1)"],
                       "wayloop-bin's bounds on ffmpeg are not those of FFmpeg \(major), which its binary (\(soname)) was built against")

        // What goes to the AUR: the tarballs' true sums, and a .SRCINFO that says the same.
        let dir = try packages()
        for (name, tarball) in [("wayloop", "wayloop-\(version).tar.gz"), ("wayloop-bin", "wayloop-\(version)-x86_64.tar.gz")] {
            let sum = String(Shell.run(["sha256sum", dir + "/" + tarball], timeout: 30).stdout.prefix(64))
            XCTAssertEqual(sum.count, 64, "no \(tarball) in \(dir)")
            let pkgbuild = (try? String(contentsOfFile: "\(dir)/aur/\(name)/PKGBUILD", encoding: .utf8)) ?? ""
            let srcinfo = (try? String(contentsOfFile: "\(dir)/aur/\(name)/.SRCINFO", encoding: .utf8)) ?? ""
            XCTAssertTrue(pkgbuild.contains("'\(sum)'"), "\(name)'s PKGBUILD for the AUR does not name \(tarball)'s sum")
            XCTAssertTrue(srcinfo.contains("= \(sum)"), "\(name)'s .SRCINFO does not name \(tarball)'s sum")
            XCTAssertTrue(srcinfo.contains("pkgname = \(name)\n"), "\(name)'s .SRCINFO: \(srcinfo)")
        }
    }

    func testTheSourceBuildAgainstFFmpeg9PlaysOnSway112() throws {
        let pkg = try package("wayloop")
        _ = try sid()
        guard getuid() == 0 else { throw HarnessError("ArchPackageTests needs root (the chroot, its mounts, the test user)") }

        let sway = try Compositor(kind: "start-sway", outputs: ["640x360"], named: "sway-1.12")
        defer { sway.stop() }
        let output = try XCTUnwrap(sway.outputs.first, "sway 1.12 reported no output")

        // The package's files where the test user reaches them (under the compositor's directory,
        // in /tmp, which the chroot sees at the same path).
        let base = sway.dir + "/arch"
        try FileManager.default.createDirectory(atPath: base + "/clips", withIntermediateDirectories: true)
        let x = Shell.run(["tar", "-xf", pkg, "-C", base, "usr"], timeout: 60)
        XCTAssertEqual(x.status, 0, x.stderr)
        let clip = base + "/clips/green.mp4"
        try SolidClip.make(clip, colour: "0x" + Self.colour.description, size: "320x180")
        try UserWorld.chown(base, to: Self.testUser)
        for d in [sway.dir, base] { chmod(d, 0o755) }
        try UserWorld.prepareChroot("chroot_packaged", dir: sway.dir, binary: base + "/usr/bin/wayloop", env: sway.env)
        let wrapper = sway.dir + "/tools/wayloop-packaged"

        let version = Shell.run([wrapper, "--version"], env: sway.env, timeout: 30)
        XCTAssertEqual(version.stdout.trimmingCharacters(in: .whitespacesAndNewlines), Help.version, version.stderr)

        let trace = base + "/trace"
        let w = try Wayloop(["-v", "--no-config", "--trace-frames", trace, clip], env: sway.env, binary: wrapper)
        defer { _ = w.stop() }
        XCTAssertTrue(w.waitForState(output, state: "playing", shown: true, timeout: 30), "\(w.lastStatus); \(w.stderr)")
        var shown = RGB8(0, 0, 0)
        XCTAssertTrue(Wait.until(timeout: 15) {
            guard let img = try? sway.shot(output) else { return false }
            shown = img.pixel(img.width / 2, img.height / 2)
            return shown.close(to: Self.colour, tolerance: 24)
        }, "the packaged wayloop never showed its clip (centre \(shown)): \(w.stderr)")
        let seen = TraceFile.records(trace).count
        XCTAssertTrue(Wait.until(timeout: 10) { TraceFile.records(trace).count >= seen + 15 },
                      "the packaged wayloop does not play: \(TraceFile.records(trace).count - seen) frames presented after the first \(seen)")
        XCTAssertEqual(w.stop(), 0, w.stderr)
    }
}
