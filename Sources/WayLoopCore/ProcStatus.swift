/// /proc/PID/status, read for memory, in kB (nil without the lines needed).
public enum ProcStatus {
    /// VmRSS less RssShmem: without the wl_shm buffers it shares with the compositor, which
    /// move with the outputs, not with what WayLoop keeps.
    public static func privateKB(_ status: String) -> Int? {
        let f = fields(status)
        return f["VmRSS"].map { $0 - (f["RssShmem"] ?? 0) }
    }

    /// RssAnon: the heap and every anonymous mapping (decoded frames, codec pools).
    public static func anonKB(_ status: String) -> Int? { fields(status)["RssAnon"] }

    /// RssAnon + RssShmem: what the process itself made, its wl_shm buffers included, without
    /// the library pages (RssFile) the kernel faults in as code first runs and drops when it likes.
    public static func ownKB(_ status: String) -> Int? {
        let f = fields(status)
        return f["RssAnon"].map { $0 + (f["RssShmem"] ?? 0) }
    }

    private static func fields(_ status: String) -> [Substring: Int] {
        var out: [Substring: Int] = [:]
        for line in status.split(separator: "\n") {
            let f = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard f.count >= 2, f[0].hasSuffix(":"), let v = Int(f[1]) else { continue }
            out[f[0].dropLast()] = v
        }
        return out
    }
}
