// The one poll(2) loop (after mako's event-loop.c and foot's fdm.c): the Wayland connection,
// then every registered source (the decoders' wakeup eventfd, a signalfd, inotify, memory
// pressure, the control socket and its clients), each added with one call. Main thread only.
import CWayland
import Glibc

struct SignalFD {
    let fd: Int32
    private var mask = sigset_t()

    /// Blocks `signals` (the command: SIGINT, SIGTERM, SIGHUP, SIGUSR1) in this thread and every
    /// thread created after, and receives them through a file descriptor. Call before starting
    /// threads. None (a library's host keeps its own signals): an fd that never fires.
    init?(handling signals: [Int32]) {
        sigemptyset(&mask)
        for s in signals { sigaddset(&mask, s) }
        guard signals.isEmpty || pthread_sigmask(SIG_BLOCK, &mask, nil) == 0 else { return nil }
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

/// Something polled beside the Wayland connection: one fd, or a set that changes from wait to
/// wait (the control socket and its clients) that fills its own slots.
protocol PollSource: AnyObject {
    /// Writes up to `capacity` pollfds; returns how many.
    func fill(_ fds: UnsafeMutablePointer<pollfd>, capacity: Int) -> Int
    /// Hears what poll said of the `count` slots it filled.
    func handle(_ fds: UnsafeMutablePointer<pollfd>, count: Int)
}

/// One fd and what to do when it is ready (after foot's `fdm_add(fd, events, handler)`).
private final class FDSource: PollSource {
    let fd: Int32, events: Int16
    let handler: () -> Void
    init(fd: Int32, events: Int16, handler: @escaping () -> Void) {
        self.fd = fd
        self.events = events
        self.handler = handler
    }
    func fill(_ fds: UnsafeMutablePointer<pollfd>, capacity: Int) -> Int {
        guard capacity > 0 else { return 0 }
        fds[0] = pollfd(fd: fd, events: events, revents: 0)
        return 1
    }
    func handle(_ fds: UnsafeMutablePointer<pollfd>, count: Int) {
        if count > 0 && fds[0].revents & events != 0 { handler() }
    }
}

/// Waits with the Wayland read protocol (prepare_read → flush → poll → read or cancel →
/// dispatch), then hands each registered source what poll said of it, in the order they were
/// added. A preallocated pollfd array: nothing is allocated per wake-up.
final class EventLoop {
    let display: WLDisplay
    private static let capacity = 16 + ControlServer.maxClients
    private let fds = UnsafeMutablePointer<pollfd>.allocate(capacity: EventLoop.capacity)
    private var sources: [PollSource] = []
    private var counts: [Int] = []

    init(display: WLDisplay) { self.display = display }
    deinit { fds.deallocate() }

    /// Polls `fd` for `events` and calls `handler` when it is ready (a negative fd is skipped).
    func add(fd: Int32, events: Int16 = Int16(POLLIN), _ handler: @escaping () -> Void) {
        add(FDSource(fd: fd, events: events, handler: handler))
    }

    func add(_ source: PollSource) {
        sources.append(source)
        counts.append(0)
    }

    /// One wait of at most `timeoutMs` (-1: until something happens). False when the
    /// connection is lost.
    func wait(timeoutMs: Int32) -> Bool {
        while !display.prepareRead() {
            if !display.dispatchPending() { return false }
        }
        // Flush what we sent; EAGAIN means the socket is full and poll waits for POLLOUT.
        var wantWrite = false
        if !display.flush() {
            if errno == EAGAIN { wantWrite = true } else {
                // The compositor may have closed the connection after a protocol error: read
                // what it sent last, so that the error is reported as one (not as a clean exit).
                if display.readEvents() { display.dispatchPending() }
                return false
            }
        }
        fds[0] = pollfd(fd: display.fd, events: Int16(POLLIN) | (wantWrite ? Int16(POLLOUT) : 0), revents: 0)
        var n = 1
        for (i, source) in sources.enumerated() {
            counts[i] = source.fill(fds + n, capacity: Self.capacity - n)
            n += counts[i]
        }
        if poll(fds, nfds_t(n), timeoutMs) < 0 {
            display.cancelRead()
            return errno == EINTR
        }
        if fds[0].revents & Int16(POLLIN) != 0 {
            if !display.readEvents() { return false }
        } else {
            display.cancelRead()
            if fds[0].revents & Int16(POLLHUP | POLLERR) != 0 { return false }
        }
        if !display.dispatchPending() { return false }
        var at = 1
        for (i, source) in sources.enumerated() {
            if counts[i] > 0 { source.handle(fds + at, count: counts[i]) }
            at += counts[i]
        }
        return true
    }
}
