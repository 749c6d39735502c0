// Which renderer draws the frames: GLES through EGL, or libswscale straight into wl_shm
// buffers (where GL would only be software: ~8x less CPU). Pure: the shell gathers the facts,
// this decides and says why.

/// What the user asks for (`--renderer`, `renderer =` in the config file's top section):
/// `auto`, or one renderer by name (one case per RendererKind).
public enum RendererRequest: String, Sendable, CaseIterable {
    /// shm where GL would be software, GL otherwise.
    case auto
    /// GLES through EGL.
    case gl
    /// libswscale straight into wl_shm buffers; never loads a GL driver.
    case shm

    /// The renderer asked for by name (nil: auto).
    public var kind: RendererKind? { RendererKind(rawValue: rawValue) }

    /// What a value must be, from the list itself: "one of auto, gl, shm". Both parsers (the
    /// command line and the config file) say it.
    public static let expected = "one of " + allCases.map(\.rawValue).joined(separator: ", ")
}

/// What draws: the renderer list (each has a render device in the shell, Sinks/).
public enum RendererKind: String, Sendable, CaseIterable {
    /// GLES through EGL: Y'CbCr→RGB and the crop in a shader.
    case gl
    /// wl_shm buffers the CPU fills: where GL would only be software.
    case shm
}

public enum RendererChoice {
    /// The facts known before EGL is touched.
    public struct Environment: Equatable, Sendable {
        /// The compositor offers zwp_linux_dmabuf_v1 (without it, Mesa's EGL copies every frame
        /// into wl_shm buffers anyway).
        public var compositorHasDmabuf: Bool
        /// A DRM render node exists (/dev/dri/renderD*): without one GL can only be software.
        public var hasRenderNode: Bool
        public init(compositorHasDmabuf: Bool, hasRenderNode: Bool) {
            self.compositorHasDmabuf = compositorHasDmabuf
            self.hasRenderNode = hasRenderNode
        }
    }

    public struct Decision: Equatable, Sendable {
        public var kind: RendererKind
        public var reason: String
        public init(_ kind: RendererKind, _ reason: String) {
            self.kind = kind
            self.reason = reason
        }
        /// The one line logged at start: `renderer: shm (reason)`.
        public var line: String { "renderer: \(kind.rawValue) (\(reason))" }
    }

    /// Decides without EGL where it can; nil means "initialise EGL, then ask `afterEGL`".
    /// The shm path never initialises EGL (no Mesa driver loaded: memory and start-up time).
    public static func beforeEGL(_ request: RendererRequest, _ env: Environment) -> Decision? {
        switch request {
        case .shm: return Decision(.shm, "asked for")
        case .gl: return nil
        case .auto:
            if !env.compositorHasDmabuf {
                return Decision(.shm, "the compositor offers no linux-dmabuf, so GL would render in software")
            }
            if !env.hasRenderNode { return Decision(.shm, "no DRM render node, so GL would render in software") }
            return nil
        }
    }

    /// Decides once EGL is up, from GL_RENDERER (e.g. "llvmpipe (LLVM 15.0.6, 256 bits)").
    public static func afterEGL(_ request: RendererRequest, glRenderer: String) -> Decision {
        if request == .auto && isSoftware(glRenderer) {
            return Decision(.shm, "EGL renders in software (\(glRenderer))")
        }
        return Decision(.gl, "\(request == .gl ? "asked for, " : "")GL_RENDERER \(glRenderer)")
    }

    /// EGL failed to come up: shm draws instead, whatever was asked.
    public static func eglFailed(_ request: RendererRequest, error: String) -> Decision {
        Decision(.shm, "EGL failed: \(error); falling back to shm")
    }

    /// Mesa's software rasterisers.
    public static func isSoftware(_ glRenderer: String) -> Bool {
        let r = glRenderer.lowercased()
        return ["llvmpipe", "softpipe", "swrast", "software rasterizer"].contains { r.contains($0) }
    }
}
