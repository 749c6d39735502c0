/// /proc/PID/status, read for memory: VmRSS less RssShmem (the wl_shm buffers it shares with
/// the compositor, which move with the outputs, not with what WayLoop keeps), in kB; nil
/// without a VmRSS line.
public enum ProcStatus {
    public static func privateKB(_ status: String) -> Int? {
        var rss: Int?, shmem = 0
        for line in status.split(separator: "\n") {
            let f = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard f.count >= 2, let v = Int(f[1]) else { continue }
            if f[0] == "VmRSS:" { rss = v } else if f[0] == "RssShmem:" { shmem = v }
        }
        return rss.map { $0 - shmem }
    }
}
