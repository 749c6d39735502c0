/// /proc/PID/status, read for memory, in kB (nil without the lines needed).
public enum ProcStatus {
    /// VmRSS less RssShmem: without the wl_shm buffers it shares with the compositor, which
    /// move with the outputs, not with what WayLoop keeps.
    public static func privateKB(_ status: String) -> Int? {
        let f = fields(status)
        return f["VmRSS"].map { $0 - (f["RssShmem"] ?? 0) }
    }

    /// VmRSS: every resident page, as ps and top show it.
    public static func rssKB(_ status: String) -> Int? { fields(status)["VmRSS"] }

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

/// What /proc says of the machine's CPU, for telling a frame dropped because another tenant of
/// a shared machine took the cores from one WayLoop dropped on its own.
public enum ProcCPU {
    /// `total=` of the "some" line of /proc/pressure/cpu: µs in which at least one runnable task
    /// waited for a CPU, since boot.
    public static func pressureSomeMicros(_ pressure: String) -> Int? {
        someField("total", of: pressure).flatMap { Int($0) }
    }

    /// The value of field `name` (`avg10`, `total` …) on the "some" line of a PSI file's text.
    public static func someField(_ name: String, of pressure: String) -> Substring? {
        for line in pressure.split(separator: "\n") where line.hasPrefix("some ") {
            for f in line.split(separator: " ") where f.hasPrefix(name + "=") { return f.dropFirst(name.count + 1) }
        }
        return nil
    }

    /// The second field of /proc/PID/task/TID/schedstat: ns the thread spent runnable on a run
    /// queue, waiting for a CPU.
    public static func runQueueWaitNanos(_ schedstat: String) -> Int? {
        let f = schedstat.split(whereSeparator: { $0 == " " || $0 == "\n" })
        return f.count >= 2 ? Int(f[1]) : nil
    }

    /// The "cpu" line of /proc/stat: clock ticks busy (user, nice, system, irq, softirq, steal)
    /// and in all, summed over the CPUs, and how many CPUs ("cpuN" lines) it sums.
    public static func ticks(_ stat: String) -> (busy: Int, all: Int, cpus: Int)? {
        let lines = stat.split(separator: "\n")
        guard let line = lines.first(where: { $0.hasPrefix("cpu ") }) else { return nil }
        let v = line.split(separator: " ").dropFirst().prefix(8).compactMap { Int($0) }
        guard v.count == 8 else { return nil }
        let cpus = lines.filter { $0.hasPrefix("cpu") && $0.dropFirst(3).first?.isNumber == true }.count
        // user nice system idle iowait irq softirq steal
        return (v[0] + v[1] + v[2] + v[5] + v[6] + v[7], v.reduce(0, +), max(1, cpus))
    }

    /// utime + stime of /proc/PID/stat: clock ticks the process has run (its threads and the
    /// children it waited for not counted). The name in parentheses may hold spaces.
    public static func processTicks(_ stat: String) -> Int? {
        // utime(14) stime(15): 11 and 12 of the fields after the name.
        guard let f = statFields(stat), f.count > 12, let u = Int(f[11]), let s = Int(f[12]) else { return nil }
        return u + s
    }

    /// The fields of /proc/PID/stat after the command name (which may hold spaces): index 0 is
    /// field 3 (state), so field N is at N − 3 (utime 14 at 11, starttime 22 at 19).
    public static func statFields(_ stat: String) -> [Substring]? {
        guard let close = stat.lastIndex(of: ")") else { return nil }
        return stat[stat.index(after: close)...].split(separator: " ")
    }
}

/// /proc/locks: who holds a lock on a file, read where the file itself cannot be opened (a lock
/// file of another user, left by a wayloop run as root).
public enum ProcLocks {
    /// A `dev_t` as glibc encodes it (gnu_dev_major/minor, macros Swift does not import).
    public static func majorMinor(_ dev: UInt64) -> (major: UInt32, minor: UInt32) {
        (UInt32(truncatingIfNeeded: ((dev >> 8) & 0xfff) | ((dev >> 32) & ~0xfff)),
         UInt32(truncatingIfNeeded: (dev & 0xff) | ((dev >> 12) & ~0xff)))
    }

    /// The pid holding a lock on the file at device `major:minor`, inode `inode`; -1 for an
    /// open-file-description lock (no pid); nil when nothing holds one. Waiters (`->`) hold nothing.
    public static func holder(major: UInt32, minor: UInt32, inode: UInt64, in locks: String) -> Int32? {
        for line in locks.split(separator: "\n") {
            var f = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard f.count >= 7, f[0].hasSuffix(":") else { continue }
            if f[1] == "->" { continue }
            f.removeFirst()
            // FLOCK ADVISORY WRITE PID MAJ:MIN:INODE START END (major and minor in hex)
            let id = f[4].split(separator: ":")
            guard id.count == 3, let pid = Int32(f[3]),
                  UInt32(id[0], radix: 16) == major, UInt32(id[1], radix: 16) == minor, UInt64(id[2]) == inode else { continue }
            return pid
        }
        return nil
    }
}
