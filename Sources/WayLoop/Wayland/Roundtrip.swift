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
