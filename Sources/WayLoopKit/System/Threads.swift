// What threads meet through: the eventfd that wakes the main loop, a condition lock, and a
// joinable worker thread. Safe from any thread.
import CWayland
import Glibc

/// An eventfd used to wake the main loop's poll(2) from other threads.
final class WakeupFD: @unchecked Sendable {
    let fd: Int32

    init?() {
        fd = eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK))
        if fd < 0 { return nil }
    }
    deinit { close(fd) }

    func signal() {
        var one: UInt64 = 1
        _ = write(fd, &one, 8)
    }

    /// Clears pending wakeups (main thread, after poll says readable).
    func drain() {
        var v: UInt64 = 0
        _ = read(fd, &v, 8)
    }
}

/// A pthread mutex with one condition variable, heap-allocated so their addresses never move.
final class ConditionLock: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let cond = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    init() {
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(cond, nil)
    }
    deinit {
        pthread_cond_destroy(cond)
        pthread_mutex_destroy(mutex)
        cond.deallocate()
        mutex.deallocate()
    }

    func withLock<T>(_ body: () throws -> T) rethrows -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }

    /// Waits for a broadcast; call only inside `withLock`.
    func wait() { pthread_cond_wait(cond, mutex) }
    func broadcast() { pthread_cond_broadcast(cond) }
}

/// A joinable pthread running one closure.
final class WorkerThread {
    private var thread = pthread_t()
    private var joined = false

    init?(_ body: @escaping @Sendable () -> Void) {
        let box = Unmanaged.passRetained(ThreadBody(body)).toOpaque()
        let rc = pthread_create(&thread, nil, { raw in
            Unmanaged<ThreadBody>.fromOpaque(raw!).takeRetainedValue().body()
            return nil
        }, box)
        if rc != 0 {
            Unmanaged<ThreadBody>.fromOpaque(box).release()
            return nil
        }
    }

    func join() {
        guard !joined else { return }
        joined = true
        pthread_join(thread, nil)
    }

    /// Lets it end on its own: nothing waits for it, and the system frees it when it does.
    func detach() {
        guard !joined else { return }
        joined = true
        pthread_detach(thread)
    }
    deinit { join() }
}

private final class ThreadBody {
    let body: @Sendable () -> Void
    init(_ body: @escaping @Sendable () -> Void) { self.body = body }
}
