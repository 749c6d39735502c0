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
