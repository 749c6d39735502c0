// --pause-on-battery: the rule that reads Linux's power_supply class (sysfs) as "on battery".
// The shell reads /sys/class/power_supply/*/{type,online,status}; this decides.

public struct PowerSupply: Equatable, Sendable {
    /// `type`: Mains, Battery, USB, UPS, Wireless, ...
    public var type: String
    /// `online` (chargers): true when plugged in.
    public var online: Bool?
    /// `status` (batteries): Charging, Discharging, Full, Not charging, Unknown.
    public var status: String?

    public init(type: String, online: Bool? = nil, status: String? = nil) {
        self.type = type
        self.online = online
        self.status = status
    }

    /// On battery: no external supply (Mains, USB, Wireless) is online, and a battery is
    /// discharging. A desktop without batteries is never on battery.
    public static func onBattery(_ supplies: [PowerSupply]) -> Bool {
        let external = ["Mains", "USB", "USB_C", "USB_PD", "Wireless"]
        if supplies.contains(where: { external.contains($0.type) && $0.online == true }) { return false }
        return supplies.contains { $0.type == "Battery" && $0.status == "Discharging" }
    }
}

/// What to give back under memory pressure (the seeds' "auto-clears on memory warning"), in the
/// order that costs the picture least: a video nobody sees is released now (decoder and frames;
/// it restarts when seen again), a video on screen that replays its loop cache gives the cache
/// up at its next loop (decoding every pass again, without a gap); the heap is trimmed after.
/// At most once per `minInterval`: a pressure that lasts does not thrash.
public enum PressurePlan {
    public struct Clip: Equatable, Sendable {
        /// `hidden`: no output shows it (none draws it, or each one that does is covered or not
        /// presented); `ready`: it has opened (one still opening is left alone).
        public var hidden: Bool, released: Bool, replaying: Bool
        /// Kept ready for a switch back (`--keep-recent`): the first to go.
        public var recent: Bool
        public var ready: Bool
        public init(hidden: Bool, released: Bool, replaying: Bool, recent: Bool = false, ready: Bool = true) {
            self.hidden = hidden
            self.released = released
            self.replaying = replaying
            self.recent = recent
            self.ready = ready
        }
    }
    /// forget: a recent video is stopped and forgotten (switching back opens it again).
    public enum Action: Equatable, Sendable { case forget, release, giveUpCache, keep }

    public static let minInterval: Int64 = 10_000_000_000

    public static func actions(_ clips: [Clip]) -> [Action] {
        clips.map { c in
            if !c.ready { return .keep }
            if c.recent { return .forget }
            if c.released { return .keep }
            if c.hidden { return .release }
            return c.replaying ? .giveUpCache : .keep
        }
    }
}

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
