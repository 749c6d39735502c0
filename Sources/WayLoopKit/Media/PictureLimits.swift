// The render device's limits as the decoder threads read them. The decoders start before the
// device is up (start-up overlaps opening the videos with EGL and the shaders), so the box
// exists first, holds a provisional limit, and the device's own replaces it once it is up.
import WayLoopCore

/// Filled once by the main thread (the device factory), read by every decoder thread.
final class PictureLimits: @unchecked Sendable {
    struct Reading {
        /// Pictures larger than this on a side are scaled down by the decoder (never a black
        /// screen for a picture the device cannot take).
        var maxPictureSize: Int
        /// The device has said; before, `maxPictureSize` is the provisional one.
        var isFinal: Bool
        /// The device draws only what changed (DeviceLimits.usesDamage): frames are compared.
        var usesDamage = true
        /// Where the device takes pictures (DeviceLimits.storage): CPU planes until it says.
        var storage: [PictureStorage.Place] = [.cpu]
    }

    /// Until the device says: 4096, which every GLES 3 implementation in use supports (and
    /// libswscale takes any size).
    static let provisional = 4096

    private let lock = ConditionLock()
    private var reading = Reading(maxPictureSize: PictureLimits.provisional, isFinal: false)

    /// Both values in one read (a decoder deciding whether it scaled a frame for the
    /// provisional limit must not see the final one in between).
    var current: Reading { lock.withLock { reading } }

    /// Main thread, once the device is up.
    func publish(_ limits: DeviceLimits) {
        lock.withLock {
            reading = Reading(maxPictureSize: limits.maxPictureSize, isFinal: true, usesDamage: limits.usesDamage, storage: limits.storage)
        }
    }
}

/// What a render device can take: the largest picture side, and where pictures may live.
struct DeviceLimits: Sendable {
    var maxPictureSize: Int
    /// CPU planes in any PlaneLayout for both devices today; a hardware decoding path would
    /// export dmabufs only for a device listing `.dmabuf`.
    var storage: [PictureStorage.Place]
    /// It converts or tells the compositor only what changed between frames (shm always; GL
    /// where EGL offers swap with damage or buffer age), so the clips compare their frames
    /// (TileDiff); without it that would be work for nothing.
    var usesDamage = true
}
