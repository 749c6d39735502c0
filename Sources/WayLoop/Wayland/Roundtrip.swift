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

/// The flag the sync callback sets (heap-allocated: libwayland keeps the pointer).
private final class SyncFlag { var done = false }

func boundedRoundtrip(_ display: OpaquePointer, signals: SignalFD, seconds: Double) -> RoundtripResult {
    let flag = SyncFlag()
    guard let cb = wl_display_sync(display) else { return .lost }
    defer { if !flag.done { wl_callback_destroy(cb) } }
    wl_callback_add_listener(cb, syncListener, Unmanaged.passUnretained(flag).toOpaque())
    let deadline = Sys.now() + Nanos(seconds * 1e9)
    var fds = [pollfd(fd: wl_display_get_fd(display), events: Int16(POLLIN), revents: 0),
               pollfd(fd: signals.fd, events: Int16(POLLIN), revents: 0)]
    while !flag.done {
        while wl_display_prepare_read(display) != 0 {
            if wl_display_dispatch_pending(display) < 0 { return .lost }
            if flag.done { return .done }
        }
        if wl_display_flush(display) < 0 && errno != EAGAIN {
            wl_display_cancel_read(display)
            return .lost
        }
        let left = deadline - Sys.now()
        if left <= 0 {
            wl_display_cancel_read(display)
            return .timedOut
        }
        let n = poll(&fds, 2, Int32(clamping: (left + 999_999) / 1_000_000))
        if n < 0 && errno != EINTR {
            wl_display_cancel_read(display)
            return .lost
        }
        if fds[1].revents & Int16(POLLIN) != 0 {
            let stop = signals.read().contains { $0 == SIGINT || $0 == SIGTERM }
            if stop {
                wl_display_cancel_read(display)
                return .stopped
            }
        }
        if fds[0].revents & Int16(POLLIN) != 0 {
            if wl_display_read_events(display) < 0 { return .lost }
        } else {
            wl_display_cancel_read(display)
            if fds[0].revents & Int16(POLLHUP | POLLERR) != 0 { return .lost }
        }
        if wl_display_dispatch_pending(display) < 0 { return .lost }
    }
    return .done
}

nonisolated(unsafe) private let syncListener: UnsafeMutablePointer<wl_callback_listener> = {
    let p = UnsafeMutablePointer<wl_callback_listener>.allocate(capacity: 1)
    p.initialize(to: wl_callback_listener(done: { data, callback, _ in
        Unmanaged<SyncFlag>.fromOpaque(data!).takeUnretainedValue().done = true
        if let callback { wl_callback_destroy(callback) }
    }))
    return p
}()
