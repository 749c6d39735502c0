"""The chart of a results.json: matplotlib (Debian's python3-matplotlib), the Agg backend.

chart() draws it and returns every value it wrote, as the text read back from the figure."""

from .chartdata import OTHER_PANEL, chart_clips, chart_renderers, chart_vos, lookup, num, path_label
from .clips import clip_label
from .config import CLIPS, MAIN_CLIP

LABEL_PT = 9.5                       # the values on the bars
COLOURS = {"wayloop shm": "#1f77b4", "wayloop gl": "#2ca02c", "wayloop auto": "#9467bd",
           "ffmpeg floor": "#8c8c8c", "mpv gpu": "#ff7f0e", "mpv wlshm": "#d62728"}
SERIES_LABELS = {"wayloop shm": "WayLoop --renderer shm", "wayloop gl": "WayLoop --renderer gl",
                 "wayloop auto": "WayLoop --renderer auto",
                 "ffmpeg floor": "FFmpeg decode floor (1 thread, decode only)",
                 "mpv gpu": "mpv --vo=gpu (fullscreen)", "mpv wlshm": "mpv --vo=wlshm (tiled window)"}
GREY = "#777777"


def empty_panel(ax, text):
    ax.text(0.5, 0.5, text, ha="center", va="center", transform=ax.transAxes, color=GREY)
    ax.set_xticks([])
    ax.set_yticks([])


def plain_spines(ax):
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)


class Chart:
    """The figure of one results.json; drawn holds (JSON path, value, template, Text) of each
    value written on it."""

    def __init__(self, results):
        self.results = results
        self.renderers = chart_renderers(results)
        self.vos = chart_vos(results)
        self.cases = results.get("cases", {})
        self.window = results.get("config", {}).get("window_s", 20.0)
        self.clip_groups = [(f"{clip_label(c)}\n{CLIPS[c][1]} {CLIPS[c][2]}", c) for c in chart_clips(results)]
        self.drawn = []
        self.fig = None

    def cell(self, p):
        v = lookup(self.results, p)
        return None if v is None else (p, v)

    def first_output(self, r, clip):
        outs = list((self.cases.get(f"{r}/1out-{clip}") or {}).get("per_output", {}))
        return outs[0] if outs else None

    def series(self, with_floor):
        s = [(f"wayloop {r}", r) for r in self.renderers]
        if with_floor:
            s.append(("ffmpeg floor", None))
        return s + [(f"mpv {vo}", vo) for vo in self.vos]

    def getter(self, metric, floor_metric=None):
        """get(series name, series key, clip) -> (JSON path, value) or None, for METRIC."""
        def get(name, key, clip):
            if name.startswith("wayloop"):
                case = ("cases", f"{key}/1out-{clip}")
                if metric in ("fps", "dropped"):
                    out = self.first_output(key, clip)
                    return self.cell(case + ("per_output", out, metric)) if out else None
                return self.cell(case + (metric,))
            if name == "ffmpeg floor":
                return self.cell(("floor", clip, floor_metric)) if floor_metric else None
            return self.cell(("mpv", key, clip, metric))
        return get

    def layout(self, ax, groups, n, vals, tmpl, ylim):
        """Bar width, whether the value labels are written upwards, and the top of the y axis."""
        fig = self.fig
        unit_px = ax.get_position().width * fig.get_figwidth() * fig.dpi / (len(groups) + 0.1)
        width = min(0.84 / max(n, 1), 80 / unit_px)   # bars at most 80 px wide
        # labels wider than a bar (many bars in a narrow panel) are written upwards
        slot_px = unit_px * width
        longest = max([len(tmpl.format(num(v))) for v in vals] + [1])
        upright = longest * LABEL_PT * 0.62 * fig.dpi / 72 + 4 > slot_px
        top = ylim[1] if ylim else max(vals + [0.1]) * (1.25 if upright else 1.13)
        return width, upright, top

    def bar(self, ax, x, width, name, c, tmpl, top, upright):
        """One bar of value C (path, value) with its label above; 'n/a' where C is None."""
        if c is None:
            ax.text(x, top * 0.01, "n/a", ha="center", va="bottom", fontsize=8, color="#999999")
            return False
        p, v = c
        ax.bar(x, v, width * 0.9, color=COLOURS.get(name, "#444444"), zorder=2)
        t = ax.text(x, v + top * 0.008, tmpl.format(num(v)), ha="center", va="bottom",
                    fontsize=LABEL_PT, zorder=3, rotation=90 if upright else 0)
        self.drawn.append((p, v, tmpl, t))
        return True

    def inside(self, ax, x, top, c2, tmpl):
        """A second value C2 written inside the bar at X."""
        t2 = ax.text(x, top * 0.03, tmpl.format(num(c2[1])), ha="center", va="bottom", fontsize=9,
                     rotation=90, color="white", fontweight="bold", zorder=3)
        self.drawn.append((c2[0], c2[1], tmpl, t2))

    def bars(self, ax, groups, series, get, tmpl="{}", ylim=None, inside=None):
        """groups [(x label, key)]; series [(name, key)]; get(name, skey, gkey) -> (path, v)|None.
        inside: (getter, template) for a second value written inside the bar."""
        n = len(series)
        vals = [c[1] for g in groups for s in series for c in [get(s[0], s[1], g[1])] if c]
        width, upright, top = self.layout(ax, groups, n, vals, tmpl, ylim)
        for si, (name, skey) in enumerate(series):
            for gi, (_, gkey) in enumerate(groups):
                x = gi + (si - (n - 1) / 2) * width
                if self.bar(ax, x, width, name, get(name, skey, gkey), tmpl, top, upright) and inside:
                    c2 = inside[0](name, skey, gkey)
                    if c2:
                        self.inside(ax, x, top, c2, inside[1])
        ax.set_xticks(range(len(groups)))
        ax.set_xticklabels([g[0] for g in groups], fontsize=10.5)
        ax.set_xlim(-0.55, len(groups) - 0.45)
        ax.set_ylim(*(ylim or (0, top)))
        ax.grid(axis="y", color="#dddddd", zorder=0)
        ax.set_axisbelow(True)
        plain_spines(ax)

    def per_clip_panels(self, gs):
        """The four panels over the clips: client CPU, compositor per commit, RSS, fps."""
        w, groups = self.window, self.clip_groups
        ax = self.fig.add_subplot(gs[0, :])
        self.bars(ax, groups, self.series(True), self.getter("client_cpu_s", "cpu_s"))
        ax.set_title(f"Client CPU-s per {w:g} s window, one 1920x1080 output "
                     f"(lower is better; {w:g} CPU-s = one core busy)")
        ax.set_ylabel("CPU-s")
        ax = self.fig.add_subplot(gs[1, :])
        self.bars(ax, groups, self.series(False), self.getter("compositor_ms_per_commit"))
        ax.set_title("Compositor (sway) CPU ms per commit (lower is better"
                     + ("; mpv --vo=gpu is fullscreen: scanned out, nearly free for sway)"
                        if "gpu" in self.vos else ")"))
        ax.set_ylabel("ms per commit")
        ax = self.fig.add_subplot(gs[2, :])
        self.bars(ax, groups, self.series(False), self.getter("rss_median_mb"))
        ax.set_title("Client RSS, median over the window, MB (lower is better)")
        ax.set_ylabel("MB")
        ax = self.fig.add_subplot(gs[3, :])
        fps_top = max([30.0] + [c[1] for g in groups for s in self.series(False)
                                for c in [self.getter("fps")(s[0], s[1], g[1])] if c]) * 1.12
        self.bars(ax, groups, self.series(False), self.getter("fps"), ylim=(0, fps_top),
                  inside=(self.getter("dropped"), "{} dropped"))
        ax.set_title("Frames presented per second, one output (the clips are 30 fps); "
                     "dropped frames over the window inside each bar")
        ax.set_ylabel("fps")

    def other_panel(self, ax):
        """The other cases: 1080p30 H.264 on 1 and 2 outputs, hidden, the 2 s loop without/with cache."""
        other = [g for g in OTHER_PANEL if any(f"{r}/{g[1]}" in self.cases for r in self.renderers)]
        if other and self.renderers:
            self.bars(ax, other, [(f"wayloop {r}", r) for r in self.renderers],
                      lambda name, r, k: self.cell(("cases", f"{r}/{k}", "client_cpu_s")))
        else:
            empty_panel(ax, "no WayLoop case in this run")
        ax.set_title(f"WayLoop client CPU-s per {self.window:g} s: outputs, hidden, loop cache")
        ax.set_ylabel("CPU-s")

    def long_values(self, ax, r, y, col):
        """Renderer R's long-run numbers in a row at Y (axes coordinates), under the lines."""
        for p, tmpl, x in ((("long", r, "rss_start_mb"), f"{r}: start {{}} MB", 0.02),
                           (("long", r, "rss_end_mb"), "end {} MB", 0.33),
                           (("long", r, "rss_growth_after_60s_mb"), "growth after the first 60 s: {} MB", 0.56)):
            v = lookup(self.results, p)
            if v is None:
                continue
            t = ax.text(x, y, tmpl.format(num(v)), transform=ax.transAxes, ha="left", va="bottom",
                        fontsize=10, color=col, fontweight="bold")
            self.drawn.append((p, v, tmpl, t))

    def long_panel(self, ax):
        long = self.results.get("long") or {}
        if not long:
            empty_panel(ax, "no long run in this run (--long 0 or --quick)")
            ax.set_title("Long run: client RSS over time")
        else:
            # the numbers in rows under the lines (one per renderer), never on them nor on each other
            block = 0.075 * len(long) + 0.03
            for ri, (r, lr) in enumerate(long.items()):
                ys = lr.get("rss_every_10s_mb") or []
                col = COLOURS.get(f"wayloop {r}", "#444444")
                ax.plot([i * 10 for i in range(len(ys))], ys, color=col, linewidth=2)
                self.long_values(ax, r, block - 0.075 * (ri + 1) + 0.01, col)
            lo = min(min(lr.get("rss_every_10s_mb") or [0]) for lr in long.values())
            hi = max(max(lr.get("rss_every_10s_mb") or [0]) for lr in long.values())
            span = max(hi - lo, 5.0) / (1 - 0.1 - block - 0.06)
            ax.set_ylim(lo - (block + 0.06) * span, hi + 0.1 * span)
            ax.set_xlabel("seconds after the warm-up")
            ax.grid(color="#dddddd")
            lw = max(lr.get("window_s", 0) for lr in long.values())
            ax.set_title(f"Long run: client RSS every 10 s over {lw:g} s, MB ({clip_label(MAIN_CLIP)})")
        ax.set_ylabel("MB")
        plain_spines(ax)

    def subtitle(self):
        results, cfg = self.results, self.results.get("config", {})
        host = results.get("host", {})
        mpv_note = results.get("mpv") if isinstance(results.get("mpv"), str) else None
        return (f"{results.get('date', '?')}   host: {host.get('cpus', '?')} CPUs, Linux "
                f"{host.get('kernel', '?')}, {host.get('wayloop') or 'wayloop ?'}, "
                f"{(host.get('sway') or '').strip()}   command: {results.get('command', '?').strip()}\n"
                f"window {self.window:g} s after a {cfg.get('warmup_s', 0):g} s warm-up"
                + (", quick run" if cfg.get("quick") else "")
                + (f"; mpv {mpv_note}" if mpv_note else "")
                + ";  every number as in results.json")

    def heading(self, all_series, ncol):
        from matplotlib.patches import Patch
        fig = self.fig
        fig.suptitle("WayLoop benchmark (scripts/bench)", x=0.055, y=0.985, ha="left",
                     fontsize=17, fontweight="bold")
        fig.text(0.055, 0.967, self.subtitle(), ha="left", va="top", fontsize=10.5, color="#333333")
        shown = [n for n, _ in all_series]
        fig.legend([Patch(color=COLOURS.get(n, "#444444")) for n in shown],
                   [SERIES_LABELS.get(n, n) for n in shown], loc="upper left",
                   bbox_to_anchor=(0.05, 0.95), ncol=ncol, fontsize=10.5, frameon=False)

    def draw(self, plt):
        all_series = self.series(True)
        plt.rcParams.update({"font.size": 10.5, "axes.titlesize": 12.5, "axes.titleweight": "bold",
                             "axes.titlelocation": "left"})
        ncol = len(all_series) if len(all_series) <= 5 else 3   # the legend: one row, else two
        self.fig = plt.figure(figsize=(16, 23), dpi=100)
        gs = self.fig.add_gridspec(5, 2, height_ratios=[1.15, 1, 1, 1, 1.05], hspace=0.42, wspace=0.16,
                                   left=0.055, right=0.985, top=0.915 if ncol == len(all_series) else 0.9,
                                   bottom=0.03)
        self.per_clip_panels(gs)
        self.other_panel(self.fig.add_subplot(gs[4, 0]))
        self.long_panel(self.fig.add_subplot(gs[4, 1]))
        self.heading(all_series, ncol)


def chart(results, path, boxes=None):
    """Draws results (a results.json) into the PNG path with matplotlib. Returns the values it
    wrote on the chart, [(JSON path label, value, text drawn)], the text read back from the
    figure; None when there is nothing to draw. With a list BOXES, appends (JSON path, value,
    text, template, its window extent, its panel's window extent) for each. Raises ImportError without matplotlib."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    c = Chart(results)
    if not c.clip_groups and not c.cases:
        return None
    c.draw(plt)
    fig = c.fig
    fig.savefig(path, dpi=100, pil_kwargs={"optimize": True})
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    out = [(p, v, t.get_text(), tmpl, t.get_window_extent(renderer),
            t.axes.get_window_extent(renderer)) for p, v, tmpl, t in c.drawn]
    plt.close(fig)
    if boxes is not None:
        boxes.extend(out)
    return [(path_label(p), v, text) for p, v, text, _, _, _ in out]
