// WayLoop's door for Quickshell shells: what `wayloop list` offers, what each output plays now
// (kept current by one long-running `wayloop ctl subscribe`), and the requests a wallpaper panel
// makes (`wayloop ctl set`, `pause`, `resume`). No video is decoded here: wayloop plays it, and
// this object only runs wayloop's commands and reads what they print.
//
// One per shell (it keeps a subscriber running); views (WayLoopPanel) and the IPC handler
// (WayLoopIpc) take it as their `service`.
import QtQuick
import Quickshell
import Quickshell.Io

Item {
    id: root
    visible: false

    // ---- configuration -------------------------------------------------------------------

    /// The wayloop program: a name looked up on PATH, an absolute path, or a list (a wrapper and
    /// its arguments, e.g. ["flatpak-spawn", "--host", "wayloop"]).
    property var command: "wayloop"
    /// What `wayloop list` lists: directories, workshop folders or files (a list, or one string
    /// of them separated by ':'; a leading ~/ is $HOME); empty: the wayloop data directories
    /// (where `wayloop NAME` looks) and Wallpaper Engine's workshop folders.
    property var paths: []
    /// Also Wallpaper Engine's workshop folders (with no `paths`).
    property bool workshop: true
    /// Ask `wayloop list` to make the missing thumbnails and previews (at idle priority).
    property bool previews: true
    /// `wayloop ctl --name NAME`: a named instance instead of the default one.
    property string instance: ""
    /// List when created (and again with refresh()).
    property bool listOnStart: true
    /// Keep a `wayloop ctl subscribe` running (restarted a few seconds after it ends, e.g.
    /// while no wayloop runs).
    property bool subscribe: true
    property int resubscribeMs: 2000

    // ---- state ---------------------------------------------------------------------------

    /// `wayloop list --json`'s items (docs/list.md): name, path, source, title, playable, reason,
    /// thumbnail, preview, …
    property var items: []
    /// `{ path, error }` of what `list` could not read at all.
    property var listErrors: []
    property bool listing: false
    /// The second pass of a listing runs: `--previews` makes what is missing.
    property bool makingPreviews: false
    /// Why the last `list` failed as a whole ("" when it listed).
    property string listFailure: ""

    /// One entry per output, from `ctl status --json` and the subscriber's events: name, state,
    /// reason, video, error.
    property var outputs: []
    /// A wayloop answers on this display (false once a ctl command exits 3).
    property bool daemonRunning: false
    /// What a ctl command said last when no wayloop answered.
    property string daemonMessage: ""
    property bool paused: outputs.length > 0 && outputs.every(o => o.state === "paused")

    /// The error line the panel shows: the last failed request (`ctl set` exits non-zero with
    /// one line on stderr), else the first output whose video failed. "" when none.
    readonly property string error: requestError !== "" ? requestError : outputError
    property string requestError: ""
    readonly property string outputError: {
        for (const o of outputs) {
            if (o.state === "failed") {
                const what = o.error || o.reason || "failed";
                return o.name + ": " + what + (o.video && what.indexOf(o.video) < 0 ? " (" + o.video + ")" : "");
            }
        }
        return "";
    }
    /// Requests waiting for their turn, and the one running (ctl commands run one at a time, in
    /// order, so that `set` then `pause` happen in that order).
    property var pending: []
    property var running: null
    readonly property bool busy: running !== null || pending.length > 0

    /// A request finished: `args` as given to ctl, `ok`, `message` (its error line, or "").
    signal requestFinished(var args, bool ok, string message)
    /// The list was read again.
    signal listed()

    // ---- what a panel calls --------------------------------------------------------------

    /// Lists again: first what the cache holds (fast: the grid fills at once, placeholders where
    /// no preview is made yet), then, with `previews`, once more with `--previews`, which makes
    /// the missing ones at idle priority (seconds on a busy machine) and fills them in.
    function refresh() {
        if (listProc.running)
            return;
        listing = true;
        makingPreviews = false;
        runList(false);
    }
    function runList(withPreviews) {
        const args = ["list", "--json"];
        if (withPreviews)
            args.push("--previews");
        const p = pathList();
        if (!workshop && p.length === 0)
            args.push("--no-workshop");
        listProc.withPreviews = withPreviews;
        listProc.exec({ command: program().concat(args, p) });
    }

    /// Plays `name` (what `items[].name` says, a path, a directory) on `output` ("*": every output).
    function set(output, name) {
        request(["set", output || "*", name]);
    }
    function pause(output) {
        request(output ? ["pause", output] : ["pause"]);
    }
    function resume(output) {
        request(output ? ["resume", output] : ["resume"]);
    }
    function toggle(output) {
        request(output ? ["toggle", output] : ["toggle"]);
    }
    function clearError() {
        requestError = "";
    }

    /// The item `list` gave for a video path (or name), or null.
    function itemFor(video) {
        if (!video)
            return null;
        for (const it of items) {
            if (it.path === video || it.name === video)
                return it;
        }
        return null;
    }

    /// What plays now, one line per output: `OUTPUT: STATE[ (REASON)] VIDEO`.
    function currentText() {
        if (!daemonRunning)
            return daemonMessage !== "" ? daemonMessage : "wayloop is not running";
        if (outputs.length === 0)
            return "no output";
        return outputs.map(o => o.name + ": " + o.state + (o.reason ? " (" + o.reason + ")" : "")
                                + (o.video ? " " + o.video : "")).join("\n");
    }

    /// The file:// URL of a local path (each part escaped: '#', '?', spaces).
    function fileUrl(path) {
        if (!path)
            return "";
        return "file://" + path.split("/").map(encodeURIComponent).join("/");
    }

    // ---- inside --------------------------------------------------------------------------

    function program() {
        const c = Array.isArray(command) ? command.slice() : [String(command)];
        return c.length > 0 && c[0] !== "" ? c : ["wayloop"];
    }
    function pathList() {
        if (!paths)
            return [];
        const home = Quickshell.env("HOME") || "";
        return (Array.isArray(paths) ? paths : String(paths).split(":")).filter(p => p !== "")
            .map(p => p === "~" ? home : p.startsWith("~/") && home !== "" ? home + p.slice(1) : p);
    }
    function ctlArgs(args) {
        return program().concat(["ctl"], instance !== "" ? ["--name", instance] : [], args);
    }
    function lastLine(text) {
        const lines = String(text || "").split("\n").map(l => l.trim()).filter(l => l !== "");
        return lines.length > 0 ? lines[lines.length - 1] : "";
    }

    function request(args) {
        pending = pending.concat([args]);
        next();
    }
    function next() {
        if (running !== null || pending.length === 0)
            return;
        running = pending[0];
        pending = pending.slice(1);
        ctlProc.exec({ command: ctlArgs(running) });
    }

    /// One output's new facts (an event or a status entry) into `outputs`.
    function applyOutput(o) {
        if (!o || !o.output && !o.name)
            return;
        const name = o.name || o.output;
        const entry = {
            name: name,
            state: o.state || "idle",
            reason: o.reason || "",
            video: o.video || "",
            error: o.error || ""
        };
        const list = outputs.slice();
        const i = list.findIndex(x => x.name === name);
        if (i >= 0)
            list[i] = entry;
        else
            list.push(entry);
        list.sort((a, b) => a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
        outputs = list;
    }

    function noDaemon(code, stderrText) {
        // ctl: exit 3 when no wayloop runs on this display
        if (code === 3) {
            daemonRunning = false;
            daemonMessage = lastLine(stderrText) || "wayloop is not running";
            outputs = [];
            return true;
        }
        return false;
    }

    function refreshStatus() {
        if (!statusProc.running)
            statusProc.exec({ command: ctlArgs(["status", "--json"]) });
    }

    Process {
        id: listProc
        stdout: StdioCollector {
            id: listOut
        }
        stderr: StdioCollector {
            id: listErr
        }
        property bool withPreviews: false
        onExited: (code, status) => {
            let doc = null;
            try {
                doc = JSON.parse(listOut.text);
            } catch (e) {
                doc = null;
            }
            if (code !== 0 || !doc || !Array.isArray(doc.items)) {
                root.listing = false;
                root.makingPreviews = false;
                root.listFailure = root.lastLine(listErr.text) || ("wayloop list exited " + code);
                root.listed();
                return;
            }
            root.listFailure = "";
            root.items = doc.items;
            root.listErrors = Array.isArray(doc.errors) ? doc.errors : [];
            // the second pass when a playable item lacks its preview
            const missing = doc.items.some(i => i.playable && !i.preview && !i.thumbnail);
            if (!withPreviews && root.previews && missing) {
                root.makingPreviews = true;
                root.runList(true);
                return;
            }
            root.listing = false;
            root.makingPreviews = false;
            root.listed();
        }
    }

    Process {
        id: ctlProc
        stdout: StdioCollector {
            id: ctlOut
        }
        stderr: StdioCollector {
            id: ctlErr
        }
        onExited: (code, status) => {
            const args = root.running;
            const message = code === 0 ? "" : (root.lastLine(ctlErr.text) || ("wayloop ctl " + args.join(" ") + " exited " + code));
            if (code === 0) {
                root.daemonRunning = true;
                if (args[0] === "set")
                    root.requestError = "";
            } else {
                root.noDaemon(code, ctlErr.text);
                root.requestError = message;
            }
            root.running = null;
            root.requestFinished(args, code === 0, message);
            root.refreshStatus();
            root.next();
        }
    }

    Process {
        id: statusProc
        stdout: StdioCollector {
            id: statusOut
        }
        stderr: StdioCollector {
            id: statusErr
        }
        onExited: (code, status) => {
            if (root.noDaemon(code, statusErr.text))
                return;
            let doc = null;
            try {
                doc = JSON.parse(statusOut.text);
            } catch (e) {
                doc = null;
            }
            if (code !== 0 || !doc || !Array.isArray(doc.outputs))
                return;
            root.daemonRunning = true;
            root.daemonMessage = "";
            // the whole list: outputs that are gone go
            root.outputs = [];
            for (const o of doc.outputs)
                root.applyOutput(o);
        }
    }

    Process {
        id: subProc
        stdout: SplitParser {
            onRead: line => {
                let ev = null;
                try {
                    ev = JSON.parse(line);
                } catch (e) {
                    return;
                }
                root.daemonRunning = true;
                root.daemonMessage = "";
                if (ev && ev.event === "state" && ev.output) {
                    root.applyOutput(ev);
                    // a failure whose event does not carry its error line: status has it
                    if (ev.state === "failed" && !ev.error)
                        root.refreshStatus();
                } else {
                    root.refreshStatus();
                }
            }
        }
        stderr: StdioCollector {
            id: subErr
        }
        onStarted: root.refreshStatus()
        onExited: (code, status) => {
            root.noDaemon(code, subErr.text);
            if (root.subscribe)
                resubscribe.restart();
        }
    }

    Timer {
        id: resubscribe
        interval: root.resubscribeMs
        onTriggered: {
            if (root.subscribe && !subProc.running)
                subProc.exec({ command: root.ctlArgs(["subscribe"]) });
        }
    }

    onSubscribeChanged: {
        if (subscribe && !subProc.running)
            subProc.exec({ command: ctlArgs(["subscribe"]) });
        else if (!subscribe)
            subProc.running = false;
    }

    Component.onCompleted: {
        if (subscribe)
            subProc.exec({ command: ctlArgs(["subscribe"]) });
        else
            refreshStatus();
        if (listOnStart)
            refresh();
    }
}
