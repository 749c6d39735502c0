"""Ratios and target checks over a run's results (results.json's ratios and targets)."""

from .cases import damage_key
from .config import (ALL_CLIPS, CAP_TARGETS, CLIP_2160P, DAMAGE_CLIP, DAMAGE_TARGETS, FIRST_FRAME_TARGET, FIT_TARGETS,
                     LOOP_CLIP, MAIN_CLIP, NOISE_CLIP, SCALING_CLIP, SCALING_TARGETS, STARTUP_TARGET_MS, TARGETS)


def ratio(a, b):
    if a is None or b in (None, 0):
        return None
    return round(a / b, 2)


def mpv_ref(results, vo, clip):
    mpv = results["mpv"]
    return mpv.get(vo, {}).get(clip) if isinstance(mpv, dict) else None


def first_output(case):
    """The per_output entry of a case's first output."""
    return list(case["per_output"].values())[0]


# ------------------------------------------------------------------------------------------------
# ratios

def clip_ratios(results, one, name):
    """A renderer's 1out case ONE of clip NAME against the floor and the mpv references."""
    floor = results["floor"]
    gpu, shm = mpv_ref(results, "gpu", name), mpv_ref(results, "wlshm", name)
    cpc = one["compositor_ms_per_commit"]
    shm_cpc = shm["compositor_ms_per_commit"] if shm and shm["fills_output"] else None
    return {
        "wayloop_vs_floor": ratio(one["client_cpu_s"], floor.get(name, {}).get("cpu_s")),
        "wayloop_vs_mpv_gpu": ratio(one["client_cpu_s"], gpu and gpu["client_cpu_s"]),
        "wayloop_vs_mpv_wlshm": ratio(one["client_cpu_s"], shm and shm["client_cpu_s"]),
        "compositor_ms_per_commit": cpc,
        "mpv_wlshm_compositor_ms_per_commit": shm_cpc,
        "compositor_per_commit_vs_mpv_wlshm": ratio(cpc, shm_cpc),
    }


def renderer_ratios(results, r):
    """Renderer R's ratios: per clip, the loop cache, two outputs against one, spanning."""
    cases = results["cases"]
    rr = {name: clip_ratios(results, cases[f"{r}/1out-{name}"], name)
          for name in ALL_CLIPS if cases.get(f"{r}/1out-{name}")}
    on, off = cases.get(f"{r}/1out-{LOOP_CLIP}-cached"), cases.get(f"{r}/1out-{LOOP_CLIP}")
    if on and off:
        rr["loop_cache_on_vs_off"] = ratio(on["client_cpu_s"], off["client_cpu_s"])
    two, one = cases.get(f"{r}/2out-{MAIN_CLIP}"), cases.get(f"{r}/1out-{MAIN_CLIP}")
    if two and one:
        rr["two_vs_one_outputs"] = ratio(two["client_cpu_s"], one["client_cpu_s"])
        rr["two_vs_one_outputs_compositor"] = ratio(two["compositor_cpu_s"], one["compositor_cpu_s"])
    span = cases.get(f"{r}/2out-span-{MAIN_CLIP}")
    if span and two:
        rr["span_vs_two_outputs"] = ratio(span["client_cpu_s"], two["client_cpu_s"])
    return rr


def shm_vs_gl(cases):
    sg = {}
    for name in ALL_CLIPS:
        a, b = cases.get(f"shm/1out-{name}"), cases.get(f"gl/1out-{name}")
        if a and b:
            sg[name] = {"client": ratio(a["client_cpu_s"], b["client_cpu_s"]),
                        "compositor": ratio(a["compositor_cpu_s"], b["compositor_cpu_s"])}
    return sg


def all_ratios(results):
    renderers = results["config"]["renderers"]
    ratios = {}
    for r in renderers:
        rr = renderer_ratios(results, r)
        if rr:
            ratios[r] = rr
    if "shm" in renderers and "gl" in renderers:
        sg = shm_vs_gl(results["cases"])
        if sg:
            ratios["shm_vs_gl"] = sg
    return ratios


# ------------------------------------------------------------------------------------------------
# target checks

class Checks(list):
    """results.json's targets: {target, value, limit (as shown), met (None: not measured), note}."""

    def add(self, name, value, op, limit, shown=None, note=None):
        met = None
        if value is not None and limit is not None:
            met = {"<=": value <= limit, ">=": value >= limit, "==": value == limit}[op]
        if shown is None:
            shown = f"{op} {limit:g}" if limit is not None else f"{op} ?"
        self.append({"target": name, "value": value, "limit": shown, "met": met,
                     **({"note": note} if note else {})})


def check_compositor_per_commit(ck, results, r, t, m):
    """shm: the compositor's CPU per commit against mpv --vo=wlshm's in the same run."""
    ref = m["mpv_wlshm_compositor_ms_per_commit"]
    shm = mpv_ref(results, "wlshm", MAIN_CLIP)
    note = None
    if shm and not shm["fills_output"]:
        note = "mpv --vo=wlshm did not fill the output as a tiled window: no reference"
    lim = None if ref is None else round(ref * t["compositor_per_commit_vs_mpv_wlshm_max"], 3)
    shown = "<= mpv --vo=wlshm's (not measured)" if lim is None else \
        f"<= {lim:g} (mpv --vo=wlshm, tiled, same run)"
    ck.add(f"{r}: compositor CPU ms per commit", m["compositor_ms_per_commit"], "<=", lim, shown, note)


def check_main_clip(ck, results, r, t, one):
    """Renderer R's 1080p30 H.264 case on one output against the targets T."""
    s = 20.0 / one["window_s"]
    m = results["ratios"][r][MAIN_CLIP]
    ck.add(f"{r}: client CPU / floor (1080p30 H.264, 1 output)", m["wayloop_vs_floor"], "<=",
           t["client_vs_floor_max"])
    if "client_vs_mpv_wlshm_max" in t:
        ck.add(f"{r}: client CPU / mpv --vo=wlshm (tiled 1920x1080)", m["wayloop_vs_mpv_wlshm"],
               "<=", t["client_vs_mpv_wlshm_max"])
    ck.add(f"{r}: client CPU / mpv --vo=gpu (fullscreen)", m["wayloop_vs_mpv_gpu"], "<=",
           t["client_vs_mpv_gpu_max"])
    if "compositor_cpu_per20s_max" in t:
        ck.add(f"{r}: compositor CPU-s per 20 s", round(one["compositor_cpu_s"] * s, 2), "<=",
               t["compositor_cpu_per20s_max"], f"<= ~{t['compositor_cpu_per20s_max']:g}")
    if "compositor_per_commit_vs_mpv_wlshm_max" in t:
        check_compositor_per_commit(ck, results, r, t, m)
    po = first_output(one)
    ck.add(f"{r}: distinct fps", po["fps"], ">=", t["fps_min"], "30")
    ck.add(f"{r}: dropped frames", po["dropped"], "==", 0)
    ck.add(f"{r}: repeated commits (none for frames that do not change)", po["repeated"], "==", 0)
    ck.add(f"{r}: first frame ms", one["first_frame_ms"], "<=", t["first_frame_max_ms"])
    ck.add(f"{r}: steady RSS MB (median)", one["rss_median_mb"], "<=", t["rss_steady_max_mb"])


def check_two_outputs(ck, results, r, t):
    """Renderer R on two outputs against one (both cases ran)."""
    cases = results["cases"]
    one, two = cases[f"{r}/1out-{MAIN_CLIP}"], cases[f"{r}/2out-{MAIN_CLIP}"]
    f1 = min(v["fps"] for v in one["per_output"].values())
    f2 = min(v["fps"] for v in two["per_output"].values())
    note = None
    if f2 < 0.9 * f1:
        note = (f"not comparable: {f2:g} fps per output on two outputs against {f1:g} on one "
                f"(the client did not keep up)")
    ck.add(f"{r}: client CPU 2 outputs / 1 output", results["ratios"][r]["two_vs_one_outputs"], "<=",
           t["two_vs_one_max"], note=note)
    if r == "shm":
        ck.add(f"{r}: distinct fps on each of 2 outputs (lowest)", f2, ">=", t["fps_min"], "30")


def check_long(ck, r, t, lg):
    """Renderer R's long run LG: RSS growth and the steady RSS at its end."""
    ck.add(f"{r}: RSS growth MB per 10 min", round(lg["rss_growth_mb"] * 600.0 / lg["window_s"], 2),
           "<=", t["rss_growth_max_mb"])
    if lg.get("rss_growth_after_60s_mb") is not None:
        ck.add(f"{r}: RSS growth MB after the first 60 s", lg["rss_growth_after_60s_mb"], "<=",
               t["rss_growth_max_mb"])
    ck.add(f"{r}: steady RSS MB at the end of the long run", lg["rss_end_mb"], "<=", t["rss_steady_max_mb"])


def check_renderer(ck, results, r, t):
    """Every target of renderer R (TARGETS[r]) its cases measured."""
    cases = results["cases"]
    one = cases.get(f"{r}/1out-{MAIN_CLIP}")
    if one:
        check_main_clip(ck, results, r, t, one)
    big = cases.get(f"{r}/1out-{CLIP_2160P}")
    if big and "fps_2160p_min" in t:
        po = first_output(big)
        ck.add(f"{r}: 2160p clip on the 1080p output, distinct fps", po["fps"], ">=",
               t["fps_2160p_min"], "30")
        ck.add(f"{r}: 2160p clip on the 1080p output, dropped frames", po["dropped"], "==", 0)
    if "two_vs_one_outputs" in results["ratios"].get(r, {}):
        check_two_outputs(ck, results, r, t)
    hid = cases.get(f"{r}/hidden")
    if hid:
        ck.add(f"{r}: hidden client CPU-s per 20 s", round(hid["client_cpu_s"] * 20.0 / hid["window_s"], 3),
               "<=", t["hidden_cpu_per20s_max"])
    lg = (results.get("long") or {}).get(r)
    if lg:
        check_long(ck, r, t, lg)


def check_caps(ck, results):
    """--max-fps: capped / uncapped on the same clip, same run; a steady cadence."""
    for r, cs in (results.get("caps") or {}).items():
        for k, c in cs.items():
            lim = CAP_TARGETS.get(k)
            if not lim:
                continue
            what = f"({c['clip']} at --max-fps {c['cap']})"
            ck.add(f"{r}: client CPU capped / uncapped {what}", c["client_ratio"], "<=", lim[0])
            ck.add(f"{r}: compositor CPU capped / uncapped {what}", c["compositor_ratio"], "<=", lim[1])
            cad = c.get("cadence") or {}
            ck.add(f"{r}: commit intervals within 1 refresh of 1/{c['cap']} s ({c['clip']})",
                   cad.get("max_dev_refreshes"), "<=", 1.0)


def comparable(cases, a_key, b_key):
    """A note when cases A_KEY and B_KEY ran at rates too far apart to compare, else None."""
    fa, fb = first_output(cases[a_key])["fps"], first_output(cases[b_key])["fps"]
    if min(fa, fb) < 0.9 * max(fa, fb):
        return f"not comparable: {fa:g} fps ({a_key}) against {fb:g} ({b_key}): one did not keep up"
    return None


def check_cinemagraph(ck, cases, r, d):
    """The cinemagraph against full motion, both with damage, and its own rate."""
    cg = d.get("cinemagraph_vs_full")
    if cg:
        note = comparable(cases, cg["cinemagraph"], cg["full"])
        ck.add(f"{r}: client CPU cinemagraph / full motion (damage on, {DAMAGE_CLIP} / {NOISE_CLIP})",
               cg["client"], "<=", DAMAGE_TARGETS["cinemagraph_vs_full_client_max"], note=note)
        ck.add(f"{r}: compositor CPU cinemagraph / full motion (damage on)", cg["compositor"],
               "<=", DAMAGE_TARGETS["cinemagraph_vs_full_compositor_max"], note=note)
    ck_key = damage_key(r, DAMAGE_CLIP, True)
    if ck_key in cases:
        po = first_output(cases[ck_key])
        ck.add(f"{r}: cinemagraph with damage, distinct fps", po["fps"], ">=",
               TARGETS.get(r, {}).get("fps_min", 29.5), "30")
        ck.add(f"{r}: cinemagraph with damage, dropped frames", po["dropped"], "==", 0)


def check_damage(ck, results):
    """Damage tracking: a cinemagraph against full motion, damage on against off, same run."""
    cases = results["cases"]
    for r, d in (results.get("damage") or {}).items():
        check_cinemagraph(ck, cases, r, d)
        cn = d.get("noise_on_vs_off")
        if cn:
            ck.add(f"{r}: client CPU full motion with / without damage tracking ({NOISE_CLIP})",
                   cn["client"], "<=", DAMAGE_TARGETS["noise_on_vs_off_client_max"],
                   note=comparable(cases, cn["on"], cn["off"]))
        cm = d.get("main_on_vs_off")
        if cm:
            ck.add(f"{r}: client CPU {MAIN_CLIP} (~20 % of its tiles change) with / without damage",
                   cm["client"], "<=", None, "no target", note=comparable(cases, cm["on"], cm["off"]))
            ck.add(f"{r}: compositor CPU {MAIN_CLIP} with / without damage", cm["compositor"], "<=",
                   None, "no target")


def check_scaling_and_startup(ck, results):
    for r, sc in (results.get("scaling") or {}).items():
        if sc.get("total_ratio") is not None:
            ck.add(f"{r}: {SCALING_CLIP} on 1080p, --scaling compositor / client, client + compositor CPU",
                   sc["total_ratio"], "<=", SCALING_TARGETS["compositor_vs_client_total_max"])
        sp = sc.get("span") or {}
        for tag in ("span-client", "span-compositor"):
            if tag in sp:
                ck.add(f"{r}: span over two 1080p outputs ({tag.split('-')[1]} scales) / the video whole "
                       f"on each, client CPU", sp[tag]["client_ratio"], "<=",
                       SCALING_TARGETS["span_vs_two_outputs_max"])
                ck.add(f"{r}: the same, client + compositor CPU", sp[tag]["total_ratio"], "<=", None, "no target")
    for r, st in (results.get("startup") or {}).items():
        ck.add(f"{r}: exec -> first frame on screen, ms (median of {st['runs']} starts)",
               st["first_frame_ms_median"], "<=", STARTUP_TARGET_MS.get(r))


def check_fit(ck, results):
    """Fitted copies: the copy's client CPU over the original's, same run; the PSNR floor."""
    cases = results["cases"]
    for r, f in (results.get("fit") or {}).items():
        for clip, x in f.items():
            what = f"{clip}" + (f" at --max-fps {x['cap']}" if x.get("cap") else "")
            ck.add(f"{r}: client CPU fitted copy / original ({what}, 1920x1080 output)", x["client_ratio"], "<=",
                   FIT_TARGETS.get(clip), None if clip in FIT_TARGETS else "no target",
                   note=comparable(cases, x["copy"], x["original"]) if not x.get("cap") else None)
            ck.add(f"{r}: luma PSNR of the copy ({clip}), dB", x["psnr_y"], ">=", FIT_TARGETS["psnr_min"])


def check_first_frame(ck, results):
    """The first frame by screenshot: the defaults' median over --fit off's (same run, same tool)."""
    ff = results.get("first_frame_shot")
    if not ff:
        return
    players = ff["players"]
    ck.add(f"first frame by screenshot, defaults (--fit auto, fresh cache) / --fit off, medians "
           f"({ff['clip']} on {ff['output_size']}, {ff['rounds']} round{'s' if ff['rounds'] != 1 else ''})",
           ff["ratios"]["defaults_over_fit_off"], "<=", FIRST_FRAME_TARGET,
           note=f"{players['defaults']['median_ms']} / {players['fit_off']['median_ms']} ms")


def summarize(results):
    """Ratios and target checks (CPU scaled to 20 s), per renderer: results' ratios and targets."""
    results["ratios"] = all_ratios(results)
    ck = Checks()
    for r in results["config"]["renderers"]:
        if TARGETS.get(r):
            check_renderer(ck, results, r, TARGETS[r])
    check_caps(ck, results)
    check_damage(ck, results)
    check_scaling_and_startup(ck, results)
    check_fit(ck, results)
    check_first_frame(ck, results)
    results["targets"] = list(ck)
