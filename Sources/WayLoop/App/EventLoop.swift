// The one poll(2) loop (after mako's event-loop.c and foot's fdm.c), with named slots: the
// Wayland connection, the decoders' wakeup eventfd and a signalfd, then the control socket and
// its clients (a preallocated pollfd array: nothing allocated per wake-up). Main thread only.
import CWayland
import Glibc

/// The slots that fired (an option set: no allocation per wake-up).
struct LoopEvents: OptionSet {
    let rawValue: UInt8
    static let wayland = LoopEvents(rawValue: 1)
    static let wakeup = LoopEvents(rawValue: 2)
    static let signal = LoopEvents(rawValue: 4)
    static let files = LoopEvents(rawValue: 8)
    static let pressure = LoopEvents(rawValue: 16)
}

struct SignalFD {
    let fd: Int32
    private var mask = sigset_t()

    /// Blocks SIGINT, SIGTERM (and SIGHUP, SIGUSR1 for later use) in this thread and every thread
    /// created after, and receives them through a file descriptor. Call before starting threads.
    init?() {
        sigemptyset(&mask)
        for s in [SIGINT, SIGTERM, SIGHUP, SIGUSR1] { sigaddset(&mask, s) }
        guard pthread_sigmask(SIG_BLOCK, &mask, nil) == 0 else { return nil }
        fd = signalfd(-1, &mask, Int32(SFD_CLOEXEC | SFD_NONBLOCK))
        if fd < 0 { return nil }
    }

    /// The signals that arrived since the last read.
    func read() -> [Int32] {
        var out: [Int32] = []
        var info = signalfd_siginfo()
        while Glibc.read(fd, &info, MemoryLayout<signalfd_siginfo>.size) == MemoryLayout<signalfd_siginfo>.size {
            out.append(Int32(info.ssi_signo))
        }
        return out
    }

    func close() { _ = Glibc.close(fd) }
}

/// Waits on the slots with the Wayland read protocol: prepare_read → flush → poll → read or
/// cancel → dispatch. Returns the slots that fired, or nil when the connection is lost.
final class EventLoop {
    let display: WLDisplay
    private static let fixed = 5
    private static let capacity = fixed + 1 + ControlServer.maxClients
    private let fds = UnsafeMutablePointer<pollfd>.allocate(capacity: EventLoop.capacity)
    /// Polled after the fixed slots; gets its revents after each wait.
    var control: ControlServer?

    /// `filesFD`: the FileWatcher's inotify fd, `pressure` the memory-pressure fd and the events
    /// it reports (-1: none; poll skips it).
    init(display: WLDisplay, wakeupFD: Int32, signalFD: Int32, filesFD: Int32, pressure: (fd: Int32, events: Int16)) {
        self.display = display
        fds[0] = pollfd(fd: display.fd, events: 0, revents: 0)
        fds[1] = pollfd(fd: wakeupFD, events: Int16(POLLIN), revents: 0)
        fds[2] = pollfd(fd: signalFD, events: Int16(POLLIN), revents: 0)
        fds[3] = pollfd(fd: filesFD, events: Int16(POLLIN), revents: 0)
        fds[4] = pollfd(fd: pressure.fd, events: pressure.events, revents: 0)
    }
    deinit { fds.deallocate() }

    func wait(timeoutMs: Int32) -> LoopEvents? {
        while !display.prepareRead() {
            if !display.dispatchPending() { return nil }
        }
        // Flush what we sent; EAGAIN means the socket is full and poll waits for POLLOUT.
        var wantWrite = false
        if !display.flush() {
            if errno == EAGAIN { wantWrite = true } else {
                // The compositor may have closed the connection after a protocol error: read
                // what it sent last, so that the error is reported as one (not as a clean exit).
                if display.readEvents() { display.dispatchPending() }
                return nil
            }
        }
        fds[0].events = Int16(POLLIN) | (wantWrite ? Int16(POLLOUT) : 0)
        let extra = control?.fill(fds + Self.fixed, capacity: Self.capacity - Self.fixed) ?? 0
        let n = poll(fds, nfds_t(Self.fixed + extra), timeoutMs)
        if n < 0 {
            display.cancelRead()
            return errno == EINTR ? [] : nil
        }
        var events: LoopEvents = []
        if fds[0].revents & Int16(POLLIN) != 0 {
            if !display.readEvents() { return nil }
            events.insert(.wayland)
        } else {
            display.cancelRead()
            if fds[0].revents & Int16(POLLHUP | POLLERR) != 0 { return nil }
        }
        if !display.dispatchPending() { return nil }
        if fds[1].revents & Int16(POLLIN) != 0 { events.insert(.wakeup) }
        if fds[2].revents & Int16(POLLIN) != 0 { events.insert(.signal) }
        if fds[3].revents & Int16(POLLIN) != 0 { events.insert(.files) }
        if fds[4].revents & fds[4].events != 0 { events.insert(.pressure) }
        if extra > 0, (0..<extra).contains(where: { fds[Self.fixed + $0].revents != 0 }) {
            control?.handle(fds + Self.fixed, count: extra)
        }
        return events
    }
}
