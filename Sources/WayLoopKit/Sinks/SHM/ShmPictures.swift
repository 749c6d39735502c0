// The shm renderer's pictures: each video frame converted by libswscale straight into a mapped
// wl_shm buffer (crop by plane offsets, scale, Y'CbCr → RGB with the frame's matrix and range,
// dim folded into the conversion's contrast: no extra pass). Outputs of the same buffer size
// and settings showing the same video share one converted buffer per frame (a wl_buffer may
// be attached to several surfaces; it is released when the last one lets go). Main thread only.
import Glibc
import WayLoopCore

/// One clip's converted pictures, per buffer size and settings. Kept by the ShmDevice.
final class ShmPictures {
    struct Key: Equatable {
        /// The buffer's size, in the video's stored orientation.
        var size: Size
        var mode: ScaleMode
        var color: RGB
        var dim: Double
        /// `-m span`: the output's part of the canvas, in the picture's stored orientation.
        var span: SpanView?
    }

    private final class Entry {
        let key: Key
        var ring: [ShmBuffer] = []
        /// `current` holds this frame serial (0: nothing yet).
        var serial: UInt64 = 0
        var current: ShmBuffer?
        let converter = ShmConverter()
        var lastUsed: Nanos
        init(key: Key, now: Nanos) {
            self.key = key
            lastUsed = now
        }
    }

    /// Buffers per entry: as few as the compositor lets go of. The picture on screen is written
    /// over once the compositor has released it (wlroots copies a wl_shm buffer into a texture
    /// and releases it at the commit: one buffer in all, half the memory of two); a second, and
    /// a third, only while it still holds it; more only while every one is busy (several
    /// outputs share the entry and a paused one holds an old frame), up to `ringMaximum`.
    /// `trim` frees the spares.
    static let ringLimit = 3
    static let ringMaximum = 8
    private var entries: [Entry] = []
    private let buffers: ShmBuffers

    init(buffers: ShmBuffers) { self.buffers = buffers }

    /// The buffer holding `picture` converted for `key`, converting it now if no output has
    /// yet. Nil when every buffer is still the compositor's (draw after a release).
    /// `cost`: the conversion's CPU time is added to it when one is made.
    func buffer(for key: Key, picture: Picture, now: Nanos, cost: inout StageCost) throws(SinkError) -> ShmBuffer? {
        let serial = picture.serial
        let entry: Entry
        if let e = entries.first(where: { $0.key == key }) { entry = e } else {
            entry = Entry(key: key, now: now)
            entries.append(entry)
        }
        entry.lastUsed = now
        if entry.serial == serial, let c = entry.current { return c }
        guard let target = try freeBuffer(entry) else { return nil }
        // The buffer holds an older frame of this clip converted for this key: only what changed
        // since that frame is converted again (ShmConverter decides whether it can).
        let colour = picture.colour
        let changed = target.holds.serial != 0 && target.holds.colour == colour ? picture.changed(since: target.holds.serial) : nil
        let started = Sys.threadCPU()
        try entry.converter.convert(picture, into: target, key: key, format: buffers.packedFormat, changed: changed)
        cost.add(Sys.threadCPU() - started)
        target.holds = (serial, colour)
        target.lastWritten = now
        entry.current = target
        entry.serial = serial
        return target
    }

    /// How a picture of `video` lies in a buffer of `key`: the converter's own (worked out once
    /// per change of size), which the sinks map their damage through too.
    func layout(for key: Key, video: Size) -> ShmLayout {
        guard let e = entries.first(where: { $0.key == key }) else { return Self.layout(for: key, video: video) }
        return e.converter.layout(video: video, buffer: key.size, key: key)
    }

    /// The layout worked out afresh (no converter has the key yet).
    static func layout(for key: Key, video: Size) -> ShmLayout {
        ShmLayout.compute(video: video, buffer: key.size, mode: key.mode, span: key.span)
    }

    private func freeBuffer(_ e: Entry) throws(SinkError) -> ShmBuffer? {
        // The picture on screen, released: the compositor has what it shows, and the buffer
        // holds the frame before this one (the fewest tiles to convert again).
        if let c = e.current, !c.busy { return c }
        if let b = e.ring.first(where: { !$0.busy }) { return b }
        if e.ring.count < Self.ringLimit || (e.ring.count < Self.ringMaximum && e.ring.allSatisfy(\.busy)) {
            let b = try buffers.make(e.key.size)
            e.ring.append(b)
            return b
        }
        return nil
    }

    /// Frees what no output has asked for since `before`: spare buffers first; a whole entry
    /// once the compositor has released its picture too (nobody shows it).
    func trim(before: Nanos) {
        for e in entries {
            if e.lastUsed < before {
                e.ring.removeAll { $0 !== e.current && !$0.busy }
            } else {
                // Spares: made while the compositor held the others, and not written since
                // `before` (it lets go of them in time now).
                e.ring.removeAll { $0 !== e.current && !$0.busy && $0.lastWritten < before }
                while e.ring.count > Self.ringLimit, let i = e.ring.firstIndex(where: { $0 !== e.current && !$0.busy }) {
                    e.ring.remove(at: i)
                }
            }
        }
        entries.removeAll { e in e.lastUsed < before && !(e.current?.busy ?? false) }
    }

}

/// A picture into a buffer, per ShmLayout: bars, the crop's chroma alignment, then Media's
/// RGBScaler (libswscale) writing straight into the mapped buffer. One per entry (its scaler
/// keeps a context for the frame size, format and layout).
final class ShmConverter {
    private let scaler = RGBScaler()
    /// One scaler per size of a piece of changed tiles (a band's height, a power of two of
    /// tiles wide; each libswscale context holds tables of its own): a few sizes per clip.
    private var runScalers: [(size: Size, scaler: RGBScaler)] = []
    private static let runScalerLimit = 16
    /// The layout last worked out, for the sizes it was worked out for: the converter's key is
    /// fixed, so it changes only with the picture's or the buffer's size.
    private var lastLayout: (video: Size, buffer: Size, layout: ShmLayout)?

    func layout(video: Size, buffer: Size, key: ShmPictures.Key) -> ShmLayout {
        if let l = lastLayout, l.video == video, l.buffer == buffer { return l.layout }
        let layout = ShmLayout.compute(video: video, buffer: buffer, mode: key.mode, span: key.span)
        lastLayout = (video, buffer, layout)
        return layout
    }

    /// Converts `picture` into `buffer`. `changed`: the tiles that changed since the frame the
    /// buffer holds (nil: unknown); where the layout allows it (ShmLayout.convertsRegions, the
    /// bars already painted), only those are converted.
    func convert(_ picture: Picture, into buffer: some PixelCanvas, key: ShmPictures.Key, format: PackedRGB,
                 changed: TileMask? = nil) throws(SinkError) {
        guard case .cpu(let planes) = picture.storage else { throw .unsupported(picture.storage.place, by: .shm) }
        let layout = layout(video: picture.size, buffer: buffer.size, key: key)
        if let changed, changed.picture == picture.size, changed.fraction <= Damage.fullAbove,
           layout.convertsRegions(chromaShiftX: Int(planes.layout.chromaShiftX), chromaShiftY: Int(planes.layout.chromaShiftY)),
           barsPainted(layout, key: key, in: buffer),
           try convertTiles(changed, of: planes, layout: layout, into: buffer, key: key, format: format) {
            return
        }
        guard !layout.source.isEmpty, !layout.destination.isEmpty else {
            // Nothing of the picture here: the bar colour alone.
            if layout.hasBorders && buffer.bars.map({ !$0.rect.isEmpty || $0.colour != key.color }) ?? true {
                buffer.fill(key.color)
                buffer.bars = (layout.destination, key.color)
            }
            return
        }
        // A crop that starts between two chroma samples (an odd luma column or row of 4:2:0)
        // converts from the sample before it, one pixel more, into one pixel before the
        // destination: the buffer's spare row and row padding take that pixel (a crop starts at
        // 0 in the destination on that axis), and the chroma lines up exactly, as in GL.
        let ex = layout.source.x & ((1 << Int(planes.layout.chromaShiftX)) - 1)
        let ey = layout.source.y & ((1 << Int(planes.layout.chromaShiftY)) - 1)
        let src = PixelRect(x: layout.source.x - ex, y: layout.source.y - ey,
                            width: layout.source.width + ex, height: layout.source.height + ey)
        let dst = PixelRect(x: layout.destination.x - ex, y: layout.destination.y - ey,
                            width: layout.destination.width + ex, height: layout.destination.height + ey)
        guard dst.x >= -1, dst.y >= -1 else { throw SinkError("a crop spill outside the buffer (\(layout.destination))") }
        if layout.hasBorders {
            if buffer.bars.map({ $0.rect != layout.destination || $0.colour != key.color }) ?? true {
                buffer.fill(key.color)
                buffer.bars = (layout.destination, key.color)
            }
        } else {
            buffer.bars = nil
        }
        do {
            try scaler.convert(planes, source: src, into: buffer.data + dst.y * buffer.stride + dst.x * 4, stride: buffer.stride,
                               size: Size(width: dst.width, height: dst.height), format: format, dim: key.dim)
        } catch {
            throw SinkError(error.description)
        }
        if layout.tiled { replicateTile(layout.destination, in: buffer) }
        // libswscale's packed-RGB writers store pixel pairs: an odd width writes one pixel past
        // the destination. Past a bar that is the bar's first column: paint it back.
        if layout.hasBorders && dst.width % 2 == 1 { repaintColumn(dst.x + dst.width, rows: dst, colour: key.color, in: buffer) }
    }

    /// The buffer's bars are what `layout` needs (none, or these in the key's colour).
    private func barsPainted(_ layout: ShmLayout, key: ShmPictures.Key, in buffer: some PixelCanvas) -> Bool {
        guard layout.hasBorders else { return buffer.bars == nil }
        return buffer.bars.map { $0.rect == layout.destination && $0.colour == key.color } ?? false
    }

    /// Converts only the changed tiles, one run of them along a band at a time, into its place
    /// (one source pixel per buffer pixel). False (nothing written) when a run is not one that
    /// libswscale converts as it would within the whole picture (a width of a multiple of 16,
    /// which its SIMD converter takes, on chroma samples): the caller converts all of it.
    private func convertTiles(_ mask: TileMask, of planes: CPUPlanes, layout: ShmLayout, into buffer: some PixelCanvas,
                              key: ShmPictures.Key, format: PackedRGB) throws(SinkError) -> Bool {
        // Runs cut into pieces of 1, 2, 4, 8 ... tiles: a handful of sizes (libswscale contexts),
        // whatever the runs' lengths.
        let runs = mask.runs.flatMap(TileMask.pieces).map { $0.intersection(layout.source) }.filter { !$0.isEmpty }
        guard runs.allSatisfy({ $0.width % 16 == 0 && $0.x % 2 == 0 && $0.y % 2 == 0 && $0.height % 2 == 0 }) else { return false }
        for r in runs {
            guard let dst = layout.bufferRect(of: r) else { continue }
            let size = Size(width: r.width, height: r.height)
            do {
                try runScaler(size).convert(planes, source: r, into: buffer.data + dst.y * buffer.stride + dst.x * 4,
                                            stride: buffer.stride, size: size, format: format, dim: key.dim)
            } catch {
                throw SinkError(error.description)
            }
        }
        return true
    }

    /// The scaler for runs of `size` (libswscale contexts are made for one size).
    private func runScaler(_ size: Size) -> RGBScaler {
        if let i = runScalers.firstIndex(where: { $0.size == size }) { return runScalers[i].scaler }
        if runScalers.count >= Self.runScalerLimit { runScalers.removeFirst() }
        let s = RGBScaler()
        runScalers.append((size, s))
        return s
    }

    private func repaintColumn(_ x: Int, rows: PixelRect, colour c: RGB, in buffer: some PixelCanvas) {
        guard x >= 0, x < buffer.size.width else { return }
        let pixel = CanvasLayout.pixel(c)
        for y in max(0, rows.y)..<min(buffer.size.height, rows.y + rows.height) {
            (buffer.data + y * buffer.stride + x * 4).storeBytes(of: pixel, as: UInt32.self)
        }
    }

    /// Tile: the first tile (top-left) copied across its rows, then those rows down the buffer.
    private func replicateTile(_ tile: PixelRect, in buffer: some PixelCanvas) {
        let rowBytes = tile.width * 4, full = buffer.size.width * 4
        for y in 0..<tile.height {
            let row = buffer.data + y * buffer.stride
            var filled = rowBytes
            while filled < full {
                let n = min(filled, full - filled)
                memcpy(row + filled, row, n)
                filled += n
            }
        }
        var y = tile.height
        while y < buffer.size.height {
            let n = min(tile.height, buffer.size.height - y)
            for r in 0..<n { memcpy(buffer.data + (y + r) * buffer.stride, buffer.data + r * buffer.stride, full) }
            y += n
        }
    }
}
