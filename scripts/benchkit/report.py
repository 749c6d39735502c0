"""The text report of a run's results (what scripts/bench prints on stdout)."""

from .config import COST_STAGES, LOOP_CLIP, MAIN_CLIP, NOISE_CLIP, SCALING_CLIP, TARGETS
from .firstframe import PLAYER_TEXT
from .summary import ratio


def fmt(v, spec="{:.2f}"):
    return "-" if v is None else spec.format(v)


def header(results):
    cfg = results["config"]
    out = ["", f"WayLoop benchmark, {results['date']}, window {cfg['window_s']:g} s, "
               f"warm-up {cfg['warmup_s']:g} s"]
    if cfg.get("only_mpv"):
        out.append("only the mpv references (--only-mpv): no wayloop case")
    elif not results["cases"] and results.get("first_frame_shot"):
        out.append("only the first frame by screenshot (--only-first-frame): wayloop's default renderer selection")
    else:
        out.append(f"renderers: {', '.join(cfg['renderers'])} (wayloop --renderer R)")
    out.append("CPU in CPU-seconds over the window; fps = distinct frames presented per second per output; "
               "ms/cmt = compositor CPU ms per commit")
    return out


def case_row(results, key, c):
    """One line of the cases table: the case against the floor and mpv on its clip (1out only)."""
    mpvd = results["mpv"] if isinstance(results["mpv"], dict) else {}
    one = key.split("/", 1)[-1].startswith("1out-")
    fl = results["floor"].get(c["clip"]) if one else None
    mg = mpvd.get("gpu", {}).get(c["clip"]) if one else None
    ms = mpvd.get("wlshm", {}).get(c["clip"]) if one else None
    pos = list(c["per_output"].values())
    fps = "/".join(f"{p['fps']:.1f}" for p in pos)
    return (f"{key:<34} {c['client_cpu_s']:>7.2f} {c['compositor_cpu_s']:>6.2f} "
            f"{fmt(fl and fl['cpu_s']):>6} {fmt(mg and mg['client_cpu_s']):>6} "
            f"{fmt(ms and ms['client_cpu_s']):>6} "
            f"{fmt(ratio(c['client_cpu_s'], fl and fl['cpu_s'])):>7} "
            f"{fmt(ratio(c['client_cpu_s'], mg and mg['client_cpu_s'])):>6} "
            f"{fmt(ratio(c['client_cpu_s'], ms and ms['client_cpu_s'])):>6} "
            f"{fmt(c.get('compositor_ms_per_commit')):>6} "
            f"{fps:>11} {sum(p['dropped'] for p in pos):>5} {sum(p['repeated'] for p in pos):>4} "
            f"{fmt(c['rss_median_mb'], '{:.1f}'):>7} {fmt(c['rss_peak_mb'], '{:.1f}'):>6} "
            f"{fmt(c['first_frame_ms'], '{:.0f}'):>7}")


def cases_table(results):
    if not results["cases"]:
        return []
    hdr = (f"{'case':<34} {'client':>7} {'comp':>6} {'floor':>6} {'mpvgpu':>6} {'mpvshm':>6} "
           f"{'/floor':>7} {'/gpu':>6} {'/wlshm':>6} {'ms/cmt':>6} "
           f"{'fps':>11} {'drop':>5} {'rep':>4} {'RSSmed':>7} {'peak':>6} {'1st ms':>7}")
    return [hdr, "-" * len(hdr)] + [case_row(results, k, c) for k, c in results["cases"].items()]


def mpv_window_text(vo, m):
    """How mpv's window was: WxH, fullscreen, floating or tiled, on its output."""
    g = m.get("window")
    if not g:
        return "-"
    return (f"{g['geometry']['width']}x{g['geometry']['height']} "
            + ("fullscreen" if g["fullscreen_mode"] else "floating" if g["floating"] else "tiled")
            + (f" on {g['output_size']}" if g.get("output_size") else "")
            + ("" if vo != "wlshm" or m["fills_output"] else " (DOES NOT FILL THE OUTPUT)"))


def mpv_table(results):
    mpv = results["mpv"]
    if isinstance(mpv, str):
        return [f"mpv: {mpv}"]
    if not mpv or not any(mpv.values()):
        return []
    out = ["", f"{'mpv reference':<26} {'client':>7} {'comp':>6} {'frames':>6} {'fps':>5} {'drop':>5} "
               f"{'ms/cmt':>6} {'RSSmed':>7} {'playing ms':>10}  window"]
    for vo, per in mpv.items():
        for name, m in per.items():
            out.append(f"{vo + '/' + name:<26} {m['client_cpu_s']:>7.2f} {m['compositor_cpu_s']:>6.2f} "
                       f"{m['frames_presented']:>6} {m['fps']:>5.1f} {fmt(m['dropped'], '{}'):>5} "
                       f"{fmt(m['compositor_ms_per_commit']):>6} "
                       f"{fmt(m['rss_median_mb'], '{:.1f}'):>7} {m['playing_after_ms']:>10.0f}  "
                       f"{mpv_window_text(vo, m)}")
    out.append("(mpv frames = the advance of its estimated-frame-number minus the frames it dropped; "
               "gpu: --fs, scanned out; wlshm: tiled, composited)")
    return out


def floor_table(results):
    floor = results["floor"]
    if not floor:
        return []
    return (["", f"{'ffmpeg floor (-threads 1)':<26} {'frames':>6} {'CPU-s':>7} {'wall s':>7}"]
            + [f"{name:<26} {f['frames']:>6} {f['cpu_s']:>7.2f} {f['wall_s']:>7.2f}"
               for name, f in floor.items()])


def paragraph(lines):
    """LINES after an empty line, or nothing."""
    return [""] + lines if lines else []


def output_ratios(results):
    """The loop cache, two outputs against one, shm against gl."""
    ratios, renderers = results["ratios"], results["config"]["renderers"]
    cache = [f"{r}: loop cache ({LOOP_CLIP}): client CPU with / without "
             f"{fmt(ratios[r]['loop_cache_on_vs_off'])}"
             for r in renderers if ratios.get(r, {}).get("loop_cache_on_vs_off") is not None]
    two = []
    for r in renderers:
        rr = ratios.get(r, {})
        if "two_vs_one_outputs" in rr:
            two.append(f"{r}: two outputs / one output: client {fmt(rr['two_vs_one_outputs'])}, "
                       f"compositor {fmt(rr['two_vs_one_outputs_compositor'])}"
                       + (f"; one video spanning both / the same video on each: client "
                          f"{fmt(rr['span_vs_two_outputs'])}" if rr.get("span_vs_two_outputs") is not None else ""))
    sg = []
    if ratios.get("shm_vs_gl"):
        sg = ["shm / gl: " + ", ".join(f"{n} client {fmt(v['client'])} compositor {fmt(v['compositor'])}"
                                       for n, v in ratios["shm_vs_gl"].items())]
    return paragraph(cache) + paragraph(two) + paragraph(sg)


def startup_and_caps(results):
    out = []
    for r, st in (results.get("startup") or {}).items():
        out.append(f"{r}: exec -> first frame on screen {st['first_frame_ms_median']} ms (median of {st['runs']}); "
                   "steps, ms after exec: " + ", ".join(f"{k} {v}" for k, v in st["steps_ms_median"].items()))
    for r, cs in (results.get("caps") or {}).items():
        for c in cs.values():
            cad = c.get("cadence") or {}
            out.append(f"{r}: {c['clip']} at --max-fps {c['cap']} / uncapped: client {fmt(c['client_ratio'])}, "
                       f"compositor {fmt(c['compositor_ratio'])}; commit interval median {cad.get('median_ms')} ms, "
                       f"{fmt(cad.get('within_1_refresh'))} within one refresh of {1000 / c['cap']:.1f} ms "
                       f"(worst {cad.get('max_dev_refreshes')} refreshes off)")
    return out


def frame_costs(results):
    rows = [(k, c["per_frame_ms"]) for k, c in results["cases"].items() if c.get("per_frame_ms")]
    if not rows:
        return []
    out = ["per frame, ms of CPU (first output; runs in the window): decode (decoder thread), compare, "
           "convert (gl: upload and draw calls), present (the rest, to the commit; gl: the swap, where llvmpipe shades)"]
    for key, per in rows:
        o = per[sorted(per)[0]]
        out.append(f"  {key:<40} " + "  ".join(f"{st} {fmt(o[st + '_ms'], '{:.2f}')} ({o[n]})"
                                                for st, n in COST_STAGES))
    return out


def scaling(results):
    cases, out = results["cases"], []
    for r, sc in (results.get("scaling") or {}).items():
        if "client" in sc:
            c, p = cases[sc["client"]], cases[sc["compositor"]]
            out.append(f"{r}: --scaling, {SCALING_CLIP} on 1080p: client scales {c['client_cpu_s']:.2f} + "
                       f"{c['compositor_cpu_s']:.2f}, compositor scales {p['client_cpu_s']:.2f} + "
                       f"{p['compositor_cpu_s']:.2f} CPU-s (client + compositor); "
                       f"total {fmt(sc['total_ratio'], '{:.3f}')}")
        sp = sc.get("span") or {}
        if sp:
            f3 = lambda tag, k: fmt(sp[tag][k], "{:.3f}")
            out.append(f"{r}: span over two outputs / whole on each: client scales: client "
                       f"{f3('span-client', 'client_ratio')}, total {f3('span-client', 'total_ratio')}; "
                       f"compositor scales: client {f3('span-compositor', 'client_ratio')}, "
                       f"total {f3('span-compositor', 'total_ratio')}")
    return out


DAMAGE_PAIRS = (("cinemagraph_vs_full", "cinemagraph / full motion, both with damage"),
                ("noise_on_vs_off", f"full motion ({NOISE_CLIP}) with / without damage"),
                ("cinemagraph_on_vs_off", "cinemagraph with / without damage"),
                ("main_on_vs_off", f"{MAIN_CLIP} with / without damage"))


def damage(results):
    cases, out = results["cases"], []
    fps = lambda key: "/".join(f"{p['fps']:g}" for p in cases[key]["per_output"].values())
    for r, d in (results.get("damage") or {}).items():
        for k, what in DAMAGE_PAIRS:
            pr = d.get(k)
            if pr:
                a, b = list(pr.values())[:2]
                out.append(f"{r}: damage: {what}: client {fmt(pr['client'], '{:.3f}')}, "
                           f"compositor {fmt(pr['compositor'], '{:.3f}')} ({fps(a)} / {fps(b)} fps)")
        out.append(f"{r}: damage: each case measured once ({d['rounds']} round), in this order: "
                   + ", ".join(k.split("/", 1)[1] for k in d["order"]))
    return out


def fit(results):
    out = []
    for r, f in (results.get("fit") or {}).items():
        for clip, x in f.items():
            cap = f" at --max-fps {x['cap']}" if x.get("cap") else ""
            out.append(f"{r}: fitted copy of {clip}{cap}: client {fmt(x['client_ratio'], '{:.3f}')}x the original's, "
                       f"compositor {fmt(x['compositor_ratio'], '{:.3f}')}x; made once in {x['make_cpu_s']} CPU-s; "
                       f"{x['copy_mb']} MiB (source {x['source_mb']} MiB); PSNR y {fmt(x['psnr_y'])} dB")
    return out


def switch_fade_long(results):
    out = []
    for r, sw in (results.get("switch") or {}).items():
        k, n = sw["keep"], sw["nokeep"]
        out.append(f"{r}: ctl set to a new video {k['first_ms']} ms; back to a recent one {k['back_median_ms']} ms "
                   f"(median of {len(k['back_ms'])}); with --keep-recent 0 back again {n['back_median_ms']} ms "
                   f"(a ctl status round trip: {k['ctl_status_median_ms']} ms)")
    for r, fd in (results.get("fade") or {}).items():
        out.append(f"{r}: during a {fd['fade_s']:g} s crossfade (x{fd['fades']}): client {fd['fade_client_ms_per_s']} ms/s "
                   f"vs {fd['steady_client_ms_per_s']} ms/s playing one video ({fmt(fd['fade_vs_steady_client'])}x); "
                   f"compositor {fd['fade_compositor_ms_per_s']} vs {fd['steady_compositor_ms_per_s']} ms/s; "
                   f"commits {fd['fade_commits_per_s']}/s vs {fd['steady_commits_per_s']}/s")
    for r, lg in (results.get("long") or {}).items():
        out.append(f"{r}: long run {lg['window_s']:g} s: RSS {lg['rss_start_mb']} -> {lg['rss_end_mb']} MB "
                   f"(growth {lg['rss_growth_mb']} MB, peak {lg['rss_peak_mb']} MB); "
                   f"after the first 60 s: {lg.get('rss_after_60s_mb')} -> {lg['rss_end_mb']} MB "
                   f"(growth {lg.get('rss_growth_after_60s_mb')} MB)")
    return out


def first_frame_shot(results):
    """The first frame with the defaults, by screenshot: each player's starts and median, the ratios."""
    ff = results.get("first_frame_shot")
    if not ff:
        return []
    out = [f"first frame by screenshot: exec -> the picture of {ff['output']} ({ff['output_size']}) changes, "
           f"{ff['clip']}, {ff['rounds']} round{'s alternated' if ff['rounds'] != 1 else ''}; grim polled, "
           f"resolution one capture (median {fmt(ff.get('grim_ms_median'), '{:.1f}')} ms here); "
           f"the default renderer selection"]
    for p, x in ff["players"].items():
        solid = sum(x.get("solid") or [])
        out.append(f"  {PLAYER_TEXT.get(p, p):<52} median {fmt(x['median_ms'], '{:.1f}'):>7} ms   "
                   + ", ".join(f"{v:g}" for v in x["ms"])
                   + (f"  (the first change a solid colour in {solid} of {len(x['ms'])})" if solid else "")
                   + ("  (DID NOT FILL THE OUTPUT)" if x.get("fills_output") is False else ""))
    if ff.get("mpv"):
        out.append(f"  mpv --vo=wlshm: {ff['mpv']}")
    r = ff["ratios"]
    out.append(f"  defaults / --fit off {fmt(r['defaults_over_fit_off'], '{:.3f}')}; "
               f"defaults / mpv --vo=wlshm {fmt(r['defaults_over_mpv_wlshm'], '{:.3f}')} (medians)")
    return out


def target_lines(results):
    cfg = results["config"]
    out = ["", "targets (gl renderer; shm renderer; CPU scaled to 20 s):"]
    for t in results["targets"]:
        st = {True: "met", False: "MISSED", None: "n/a"}[t["met"]]
        out.append(f"  {st:<7} {t['target']}: {t['value']} (target {t['limit']})"
                   + (f"; {t['note']}" if t.get("note") else ""))
    unchecked = [r for r in cfg["renderers"] if r not in TARGETS and not cfg.get("only_mpv")]
    if unchecked:
        out.append(f"  (no targets for {', '.join(unchecked)}: measured only)")
    if not results["targets"]:
        out.append("  (none checked in this run)")
    return out


def report_lines(results):
    """The report of RESULTS (a results.json with its ratios and targets), line by line."""
    return (header(results) + cases_table(results) + mpv_table(results) + floor_table(results)
            + output_ratios(results) + startup_and_caps(results) + frame_costs(results) + scaling(results)
            + damage(results) + fit(results) + switch_fade_long(results)
            + paragraph(first_frame_shot(results)) + target_lines(results))


def print_table(results):
    print("\n".join(report_lines(results)))
