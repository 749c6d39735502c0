// wl_display_roundtrip with a deadline and an ear for SIGINT/SIGTERM: a socket that accepts
// but never answers, or answers garbage, must not hang start-up, and a stop signal
// must work while it waits (signals are already blocked for the signalfd). Main thread only.
import CWayland
import Glibc
import WayLoopCore

enum RoundtripResult: Equatable {
    case done
    /// Nothing came back in time.
    case timedOut
    /// SIGINT or SIGTERM arrived meanwhile.
    case stopped
    /// The connection failed (closed, or what came was not Wayland).
    case lost
}

func boundedRoundtrip(_ display: WLDisplay, signals: SignalFD, seconds: Double) -> RoundtripResult {
    var done = false
    guard let cb = display.sync({ _ in done = true }) else { return .lost }
    // Explicit, and so alive until here: a callback that did not fire must not fire later.
    defer { cb.destroy() }
    let deadline = Sys.now() + Nanos(seconds * 1e9)
    var fds = [pollfd(fd: display.fd, events: Int16(POLLIN), revents: 0),
               pollfd(fd: signals.fd, events: Int16(POLLIN), revents: 0)]
    while !done {
        while !display.prepareRead() {
            if !display.dispatchPending() { return .lost }
            if done { return .done }
        }
        if !display.flush() && errno != EAGAIN {
            display.cancelRead()
            return .lost
        }
        let left = deadline - Sys.now()
        if left <= 0 {
            display.cancelRead()
            return .timedOut
        }
        let n = poll(&fds, 2, Int32(clamping: (left + 999_999) / 1_000_000))
        if n < 0 && errno != EINTR {
            display.cancelRead()
            return .lost
        }
        if fds[1].revents & Int16(POLLIN) != 0 {
            let stop = signals.read().contains { $0 == SIGINT || $0 == SIGTERM }
            if stop {
                display.cancelRead()
                return .stopped
            }
        }
        if fds[0].revents & Int16(POLLIN) != 0 {
            if !display.readEvents() { return .lost }
        } else {
            display.cancelRead()
            if fds[0].revents & Int16(POLLHUP | POLLERR) != 0 { return .lost }
        }
        if !display.dispatchPending() { return .lost }
    }
    return .done
}

extension RoundtripResult {
    /// The one line a failed start-up roundtrip gets (nil: done or stopped), naming the socket.
    func problem(_ display: WLDisplay, seconds: Double) -> String? {
        let name = Sys.env("WAYLAND_DISPLAY") ?? "wayland-0"
        switch self {
        case .done, .stopped: return nil
        case .timedOut:
            return "the compositor at WAYLAND_DISPLAY=\(name) accepted the connection but did not answer within \(Int(seconds)) s"
        case .lost:
            if display.error == EPROTO { return "the compositor at WAYLAND_DISPLAY=\(name) sent a protocol error during start-up" }
            return "the connection to WAYLAND_DISPLAY=\(name) failed during start-up (\(Sys.errnoText(display.error))): is it a Wayland compositor?"
        }
    }
}

extension WLDisplay {
    /// Why the connection ended: a protocol error (WayLoop's bug: exit 1) or the compositor
    /// closing it (it went away: exit 0), as one line.
    var lostReason: (isProtocolError: Bool, line: String) {
        guard error == EPROTO else { return (false, "the compositor closed the connection; exiting") }
        let e = protocolError
        return (true, "protocol error \(e.code) on \(e.interface)#\(e.id): this is a WayLoop bug")
    }
}
