// Reads the power_supply class from sysfs for --pause-on-battery. The directory can be moved
// with $WAYLOOP_POWER_SUPPLY_DIR (tests point it at a fake tree). Main thread only.
import Glibc
import WayLoopCore

enum PowerMonitor {
    static var directory: String {
        getenv("WAYLOOP_POWER_SUPPLY_DIR").map { String(cString: $0) } ?? "/sys/class/power_supply"
    }

    static func read() -> [PowerSupply] {
        guard let dir = opendir(directory) else { return [] }
        defer { closedir(dir) }
        var out: [PowerSupply] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name.hasPrefix(".") { continue }
            let base = "\(directory)/\(name)/"
            guard let type = value(base + "type") else { continue }
            out.append(PowerSupply(type: type, online: value(base + "online").map { $0 == "1" }, status: value(base + "status")))
        }
        return out
    }

    private static func value(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buf = [UInt8](repeating: 0, count: 64)
        let n = Glibc.read(fd, &buf, buf.count)
        guard n > 0 else { return nil }
        return String(decoding: buf[0..<n], as: UTF8.self).split(separator: "\n").first.map(String.init)
    }
}
