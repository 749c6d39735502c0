// Memory pressure, from the kernel's pressure stall information (after systemd-oomd and
// Android's lmkd): a PSI trigger on /proc/pressure/memory ("some 150 ms of stall within 2 s";
// a 2 s window is what an unprivileged process may ask for) makes the fd poll with POLLPRI when
// tasks wait on memory. The app then gives back what it can (PressurePlan). Tests inject the
// pressure instead: WAYLOOP_PRESSURE_FIFO names a FIFO, and each line written to it is one
// event (the suite must not depend on the machine's real pressure). Main thread only.
import Glibc
import WayLoopCore

final class PressureMonitor {
    let fd: Int32
    /// POLLPRI for a PSI trigger, POLLIN for the injected FIFO.
    let events: Int16
    let source: String
    private let injected: Bool

    private init(fd: Int32, events: Int16, source: String, injected: Bool) {
        self.fd = fd
        self.events = events
        self.source = source
        self.injected = injected
    }

    /// The injected FIFO if the environment names one, else the PSI trigger; nil where the
    /// kernel has no PSI (older than 4.20, or booted with psi=0): nothing to watch, said at debug level.
    static func open(log: Logger) -> PressureMonitor? {
        if let fifo = Sys.env("WAYLOOP_PRESSURE_FIFO") {
            // O_RDWR: the FIFO never reports EOF (POLLHUP) when a writer goes away.
            let fd = Glibc.open(Sys.cPath(fifo), O_RDWR | O_NONBLOCK | O_CLOEXEC)
            guard fd >= 0 else {
                log.error("cannot open WAYLOOP_PRESSURE_FIFO '\(fifo)': \(Sys.errnoText())")
                return nil
            }
            return PressureMonitor(fd: fd, events: Int16(POLLIN), source: fifo, injected: true)
        }
        let path = "/proc/pressure/memory"
        let fd = Glibc.open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else {
            log.debug("no memory pressure information (\(path): \(Sys.errnoText()))")
            return nil
        }
        let trigger = Array("some 150000 2000000".utf8) + [0]
        guard write(fd, trigger, trigger.count) == trigger.count else {
            log.debug("cannot set a memory pressure trigger (\(path): \(Sys.errnoText()))")
            close(fd)
            return nil
        }
        return PressureMonitor(fd: fd, events: Int16(POLLPRI), source: path, injected: false)
    }

    /// Whether it reports pressure now (a poll that does not wait).
    var isReady: Bool {
        var p = pollfd(fd: fd, events: events, revents: 0)
        return poll(&p, 1, 0) > 0 && p.revents & events != 0
    }

    /// Consumes what made the fd ready (the FIFO's lines; a PSI event has nothing to read).
    func drain() {
        guard injected else { return }
        var buf = [UInt8](repeating: 0, count: 256)
        while read(fd, &buf, buf.count) > 0 {}
    }

    deinit { close(fd) }
}
