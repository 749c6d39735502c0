// `wayloop list`: the videos WayLoop can play, as a picker needs them (docs/list.md). It reads
// the directories, opens each video it has no cached facts of, makes previews on demand (at idle
// priority) and keeps the facts cache and the preview cache; the decisions are WayLoopCore's
// (LibraryEntries, WorkshopItem, FactsIndex, PreviewPlan, ListOutput). Main thread only.
import CFFmpeg
import CSystem
import Glibc
import WayLoopCore

enum LibraryList {
    /// A file or workshop folder to list, before its facts are known.
    struct Found {
        var path: String
        var source: ListSource
        /// A workshop item: its id, folder, what its project.json says (nil: it could not be
        /// read), and why it plays nothing (nil: it is a video item whose file is `path`).
        var item: (id: String, folder: String, project: WorkshopItem?, problem: String?)?
    }

    static func run(_ c: ListCommand) -> ExitStatus {
        av_quiet()
        let cwd = Sys.currentDirectory, home = Sys.env("HOME")
        var found: [Found] = []
        var errors: [ListError] = []
        if c.paths.isEmpty {
            for d in Sys.videoDirectories { scan(d, source: .library, into: &found, errors: &errors, quietIfMissing: true) }
            if !c.noWorkshop {
                for w in Workshop.folders() { scan(w, source: .workshop, into: &found, errors: &errors, quietIfMissing: true) }
            }
        } else {
            for p in c.paths { given(Paths.absolute(p, in: cwd, home: home), into: &found, errors: &errors) }
        }
        var seen: Set<String> = []
        found = found.filter { seen.insert($0.path).inserted }

        let caches = Caches.standard()
        var index = caches.map { FactsIndex.entries(Sys.readText($0.index, limit: 64 << 20) ?? "") } ?? [:]
        let fitted = FitCache.standard().map { Set($0.entries().map(\.name)) } ?? []
        // SCHED_IDLE: only CPU time nothing else wants (and the kernel gives such a task the idle I/O class).
        if c.previews { _ = csys_sched_idle() }
        var items: [ListedItem] = []
        var changed = false
        // What a bare name resolves to, with each data directory read once (not once per video).
        var listings: [String: [String]] = [:]
        let dirs = Sys.videoDirectories
        let workshops = Workshop.folders()
        // As Sys.findVideo: the data directories, then (an ID) the first workshop folder's item.
        let resolve: (String) -> String? = { name in
            let found = VideoLookup.resolve(name, in: dirs) { d in
                if let l = listings[d] { return l }
                let l = Sys.fileNames(in: d)
                listings[d] = l
                return l
            }
            guard found == nil, WorkshopItem.isID(name) else { return found }
            return workshops.first { Workshop.hasProject($0 + "/" + name) }.map { Workshop.resolveFolder($0 + "/" + name) }
        }
        for f in found {
            items.append(describe(f, index: &index, changed: &changed, fitted: fitted, caches: caches, makePreviews: c.previews,
                                  resolve: resolve))
        }
        if let caches { caches.keep(index: &index, changed: changed) }

        if c.json {
            Sys.writeStdout(ListOutput.json(items, errors: errors))
        } else {
            for e in errors { Sys.writeStderr("wayloop: notice: list: '\(e.path)': \(e.error)") }
            Sys.writeStdout(ListOutput.text(items, home: home))
        }
        return errors.isEmpty ? .ok : .failure
    }

    /// A path given on the command line: a video file, a directory, a workshop item's folder.
    private static func given(_ path: String, into found: inout [Found], errors: inout [ListError]) {
        var st = stat()
        guard stat(Sys.cPath(path), &st) == 0 else {
            errors.append(ListError(path: path, error: errno == ENOENT ? "no such file or directory" : "cannot read it: \(Sys.errnoText())"))
            return
        }
        if (st.st_mode & S_IFMT) != S_IFDIR {
            found.append(Found(path: path, source: .file))
        } else if Workshop.hasProject(path) {
            found.append(Workshop.found(path))
        } else {
            scan(path, source: .directory, into: &found, errors: &errors, quietIfMissing: false)
        }
    }

    /// A directory's videos and the workshop items in its sub-directories.
    private static func scan(_ dir: String, source: ListSource, into found: inout [Found], errors: inout [ListError], quietIfMissing: Bool) {
        let entries: [LibraryEntries.Entry]
        switch Sys.directoryEntries(dir) {
        case .failure(let e):
            if !(quietIfMissing && (e.code == ENOENT || e.code == ENOTDIR)) {
                errors.append(ListError(path: dir, error: "cannot read it: \(Sys.errnoText(e.code))"))
            }
            return
        case .success(let e): entries = e
        }
        let split = LibraryEntries.split(entries)
        let base = dir == "/" ? "" : dir
        for v in split.videos { found.append(Found(path: base + "/" + v, source: source == .workshop ? .directory : source)) }
        for sub in split.folders where Workshop.hasProject(base + "/" + sub) { found.append(Workshop.found(base + "/" + sub)) }
    }

    /// A found file's line: its facts (cached, else read now), its name, title and previews.
    private static func describe(_ f: Found, index: inout [String: (FileStamp, FileFacts)], changed: inout Bool,
                                 fitted: Set<String>, caches: Caches?, makePreviews: Bool, resolve: (String) -> String?) -> ListedItem {
        if let item = f.item, let problem = item.problem {
            return ListedItem(name: WorkshopItem.isID(item.id) ? item.id : item.folder, path: item.folder, source: .workshop,
                              title: ListedItem.title(workshop: item.project?.title, tag: nil, path: item.folder),
                              facts: FileFacts(problem: problem), bytes: 0, preview: Workshop.preview(item.project, folder: item.folder),
                              workshop: (item.id, item.project?.type, item.folder))
        }
        let stamp = Sys.stamp(f.path)
        var facts: FileFacts
        if let s = stamp, let cached = index[f.path], cached.0 == s {
            facts = cached.1
        } else {
            facts = probe(f.path)
            if let s = stamp { index[f.path] = (s, facts); changed = true }
        }
        // Whether a fitted copy is cached: its name starts with the source's identity (2 MiB
        // read once per version of the file, then cached), asked only when the cache has copies.
        var hasCopy = false
        if facts.problem == nil, !fitted.isEmpty, let s = stamp {
            if facts.identity == nil, let id = try? FitCache.identity(of: f.path) {
                facts.identity = id
                index[f.path] = (s, facts)
                changed = true
            }
            if let id = facts.identity { hasCopy = fitted.contains { $0.hasPrefix(id + "-") && $0.hasSuffix(".mp4") } }
        }
        var thumbnail: String?, preview: String?
        if let caches, let s = stamp, facts.problem == nil {
            let files = caches.previewFiles(s.key)
            if makePreviews && (!Sys.exists(files.thumbnail) || !Sys.exists(files.preview)) {
                do { try PreviewMaker.make(f.path, thumbnail: files.thumbnail, preview: files.preview) } catch {
                    Sys.writeStderr("wayloop: notice: list: '\(f.path)': no preview: \(error)")
                }
            }
            if Sys.exists(files.thumbnail) { thumbnail = files.thumbnail; Sys.touch(files.thumbnail) }
            if Sys.exists(files.preview) { preview = files.preview; Sys.touch(files.preview) }
        }
        let item = f.item
        if let item, let own = Workshop.preview(item.project, folder: item.folder) { preview = own }
        let name: String
        if let item, WorkshopItem.isID(item.id), resolve(item.id) == f.path {
            name = item.id
        } else if f.source == .library {
            let base = f.path.split(separator: "/").last.map(String.init) ?? f.path
            name = ListedItem.name(for: f.path, candidates: [LibraryEntries.stem(f.path), base], resolve: resolve)
        } else {
            name = f.path
        }
        return ListedItem(name: name, path: f.path, source: item == nil ? f.source : .workshop,
                          title: ListedItem.title(workshop: item?.project?.title, tag: facts.title, path: f.path),
                          facts: facts, bytes: stamp?.bytes ?? 0, fitted: hasCopy, thumbnail: thumbnail, preview: preview,
                          workshop: item.map { ($0.id, $0.project?.type, $0.folder) })
    }

    /// What is known of a file by opening it: its facts, or why it cannot be played.
    static func probe(_ path: String) -> FileFacts {
        if let e = Preflight.check(path) { return FileFacts(problem: e.reason) }
        let input: VideoInput
        do { input = try VideoInput.open(path) } catch { return FileFacts(problem: error.reason) }
        var fmt: UnsafeMutablePointer<AVFormatContext>? = input.format
        defer { avformat_close_input(&fmt) }
        let clip = input.facts
        var title: String?
        if let e = av_dict_get(input.format.pointee.metadata, "title", nil, 0), let v = e.pointee.value {
            title = String(cString: v)
        }
        let shown = clip.turned ? Size(width: clip.size.height, height: clip.size.width) : clip.size
        return FileFacts(title: title, duration: clip.duration, size: shown, codec: clip.codec,
                          fps: clip.frameRate > 0 && clip.frameRate.isFinite ? clip.frameRate : nil)
    }

    /// Where the facts and the previews are kept: beside the fitted copies, in
    /// `$XDG_CACHE_HOME/wayloop` (else `~/.cache/wayloop`).
    struct Caches {
        let index: String
        let previews: String

        static func standard() -> Caches? {
            let base: String
            if let x = Sys.env("XDG_CACHE_HOME"), x.hasPrefix("/") { base = x + "/wayloop" } else {
                guard let home = Sys.env("HOME"), !home.isEmpty else { return nil }
                base = home + "/.cache/wayloop"
            }
            return Caches(index: base + "/library", previews: base + "/previews")
        }

        func previewFiles(_ key: String) -> (thumbnail: String, preview: String) {
            (previews + "/" + key + ".png", previews + "/" + key + ".gif")
        }

        /// Writes the facts back (without the files that are gone) and deletes the previews
        /// no cached file has, then the least recently used past PreviewPlan.maxBytes.
        func keep(index: inout [String: (FileStamp, FileFacts)], changed: Bool) {
            var gone = false
            for (path, entry) in index where Sys.stamp(path) != entry.0 {
                index[path] = nil
                gone = true
            }
            if changed || gone {
                let dir = FileWatcher.directory(self.index)
                if Sys.makeDirectories(dir) == nil {
                    var entries: [FileStamp: FileFacts] = [:]
                    for (_, e) in index { entries[e.0] = e.1 }
                    _ = Sys.writeWhole(Array(FactsIndex.text(entries).utf8), to: self.index, mode: 0o644, sync: false)
                }
            }
            var files: [(name: String, bytes: Int, used: Int)] = []
            for name in Sys.fileNames(in: previews) {
                var st = stat()
                guard stat(Sys.cPath(previews + "/" + name), &st) == 0 else { continue }
                files.append((name, Int(st.st_size), Int(st.st_mtim.tv_sec)))
            }
            let live = Set(index.values.map(\.0.key))
            for name in PreviewPlan.evictions(files, live: live, maxBytes: PreviewPlan.maxBytes) {
                unlink(Sys.cPath(previews + "/" + name))
            }
        }
    }
}

/// Wallpaper Engine's items on this machine (WorkshopItem and SteamLibraries decide).
enum Workshop {
    /// The workshop content folders of Wallpaper Engine that exist here, each once.
    static func folders() -> [String] {
        var out: [String] = [], real: Set<String> = []
        for root in SteamLibraries.roots(home: Sys.env("HOME"), xdgDataHome: Sys.env("XDG_DATA_HOME")) {
            var libraries = [root]
            for vdf in [root + "/steamapps/libraryfolders.vdf", root + "/config/libraryfolders.vdf"] {
                if let text = Sys.readText(vdf, limit: 1 << 20) { libraries += SteamLibraries.folders(vdf: text) }
            }
            for lib in libraries {
                let w = SteamLibraries.workshopFolder(library: lib)
                guard let r = Sys.realPath(w), real.insert(r).inserted else { continue }
                out.append(w)
            }
        }
        return out
    }

    static func hasProject(_ folder: String) -> Bool {
        var st = stat()
        return stat(Sys.cPath(folder + "/" + WorkshopItem.projectFile), &st) == 0 && (st.st_mode & S_IFMT) == S_IFREG
    }

    /// What an item's folder is: its video file, or why it plays nothing.
    static func found(_ folder: String) -> LibraryList.Found {
        let id = folder.split(separator: "/").last.map(String.init) ?? folder
        let project: WorkshopItem
        switch read(folder) {
        case .failure(let e):
            return LibraryList.Found(path: folder, source: .workshop, item: (id, folder, nil, e.description))
        case .success(let p): project = p
        }
        switch video(project, folder: folder) {
        case .failure(let why): return LibraryList.Found(path: folder, source: .workshop, item: (id, folder, project, why.description))
        case .success(let file): return LibraryList.Found(path: file, source: .workshop, item: (id, folder, project, nil))
        }
    }

    static func read(_ folder: String) -> Result<WorkshopItem, WorkshopError> {
        switch Sys.readFile(folder + "/" + WorkshopItem.projectFile, limit: 1 << 20) {
        case .failure(let e): return .failure(.invalid("cannot read its project.json: \(e.code == EFBIG ? "over 1 MiB" : Sys.errnoText(e.code))"))
        case .success(let text): return WorkshopItem.parse(text)
        }
    }

    /// The file a video item plays (it must be there), or why the item plays nothing.
    static func video(_ project: WorkshopItem, folder: String) -> Result<String, WorkshopError> {
        switch project.verdict {
        case .failure(let e): return .failure(e)
        case .success(let rel):
            let file = folder + "/" + rel
            return Sys.exists(file) ? .success(file) : .failure(.notPlayable("its project.json names '\(rel)', which is not in its folder"))
        }
    }

    /// The item's own preview file, when it names one that is there.
    static func preview(_ project: WorkshopItem?, folder: String) -> String? {
        guard let p = project?.preview, WorkshopItem.isInside(p), Sys.exists(folder + "/" + p) else { return nil }
        return folder + "/" + p
    }

    /// `wayloop ID`: the item's folder in the workshop folders (nil: no such item). A video
    /// item gives its file; any other its folder, which then fails with the reason.
    static func find(_ id: String) -> String? {
        guard WorkshopItem.isID(id) else { return nil }
        for w in folders() where hasProject(w + "/" + id) {
            return resolveFolder(w + "/" + id)
        }
        return nil
    }

    /// Why an item's folder plays nothing (for one that plays, a phrase saying it does not).
    static func whyNot(_ folder: String) -> String {
        switch read(folder) {
        case .failure(let e): return e.description
        case .success(let p):
            if case .failure(let w) = video(p, folder: folder) { return w.description }
            return "it is a video item"
        }
    }

    /// A path as given (relative to `here`): a workshop item's folder becomes its video file
    /// (absolute); anything else is left as it is.
    static func resolvePath(_ v: String, here: String) -> String {
        guard !VideoLookup.isBareName(v) || Sys.exists(v) else { return v }
        let abs = Paths.absolute(v, in: here, home: Sys.env("HOME"))
        guard hasProject(abs) else { return v }
        return resolveFolder(abs)
    }

    /// A workshop item's folder as a video: its file where it is a video item (nil otherwise:
    /// the folder then fails as an item that plays nothing).
    static func resolveFolder(_ folder: String) -> String {
        guard hasProject(folder), case .success(let p) = read(folder), case .success(let file) = video(p, folder: folder) else { return folder }
        return file
    }
}
