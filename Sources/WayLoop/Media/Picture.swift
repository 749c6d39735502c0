// A decoded picture as a sink sees it: the frame's planes, their layout, its colour and how it
// is turned for display. Valid while its clip shows it. Main thread only.
import CFFmpeg
import WayLoopCore

struct Picture {
    let frame: UnsafeMutablePointer<AVFrame>
    /// The clip's serial of this frame: a sink converts or uploads it once per serial.
    let serial: UInt64
    /// The clip's path: the key of the sinks' resources for it.
    let clip: String
    let orientation: Orientation

    /// Coded size.
    var size: Size { Size(width: Int(frame.pointee.width), height: Int(frame.pointee.height)) }
    /// How the planes map onto a renderer (nil: a format the decoder should have converted).
    var layout: PlaneLayout? { PlaneLayout(frame: frame) }
    /// Matrix and range, by the documented rule when the frame leaves them unspecified.
    func colour(_ layout: PlaneLayout) -> FrameColour { FrameColour(frame: frame, layout: layout) }

    /// Plane `i`'s first byte and line size (AVFrame.data and .linesize are 8-tuples in Swift).
    func plane(_ i: Int) -> (data: UnsafeMutablePointer<UInt8>?, lineSize: Int) {
        withUnsafePointer(to: frame.pointee.data) { dp in
            withUnsafePointer(to: frame.pointee.linesize) { lp in
                dp.withMemoryRebound(to: UnsafeMutablePointer<UInt8>?.self, capacity: 8) { data in
                    lp.withMemoryRebound(to: Int32.self, capacity: 8) { (data[i], Int($0[i])) }
                }
            }
        }
    }
}
