"""sway-json.py WHAT < JSON: lines from sway's IPC replies (`swaymsg -r`), for scripts/compositor.

  outputs       (get_outputs) every output:        NAME WIDTH HEIGHT SCALE
  outer-output  (get_outputs) the first active one: NAME WIDTH HEIGHT WORKSPACE
  windows       (get_tree) each window of a nested sway's inner output ("wlroots - WL-n"):
                NAME WORKSPACE X Y WIDTH HEIGHT FLOATING(0/1) FOCUSED(0/1)

A missing value prints as "?" (0 for the numbers of outer-output and windows). Exits 1 when
stdin is not JSON. Standard library only.
"""
import json
import re
import sys

WINDOW = re.compile(r"wlroots - (WL-[0-9]+)")


def text(v):
    """A value as Perl's "%s" printed it (1.0 -> 1, 1.5 -> 1.5), "?" when missing."""
    if v is None:
        return "?"
    if isinstance(v, float):
        return "%.15g" % v
    return str(v)


def num(v):
    return int(v or 0)


def outputs(doc):
    for o in doc:
        m = o.get("current_mode") or {}
        print(o.get("name"), text(m.get("width")), text(m.get("height")), text(o.get("scale")))


def outer_output(doc):
    for o in doc:
        if not o.get("active"):
            continue
        m = o.get("current_mode") or {}
        print(o.get("name"), num(m.get("width")), num(m.get("height")), text(o.get("current_workspace")))
        return


def windows(node, ws="", floating=0):
    kind = node.get("type") or ""
    if kind == "workspace":
        ws = node.get("name") or ""
    m = WINDOW.fullmatch(node.get("name") or "")
    if kind in ("con", "floating_con") and m:
        r = node.get("rect") or {}
        print(m.group(1), ws, *(num(r.get(k)) for k in ("x", "y", "width", "height")),
              floating, 1 if node.get("focused") else 0)
    for n in node.get("nodes") or []:
        windows(n, ws, 0)
    for n in node.get("floating_nodes") or []:
        windows(n, ws, 1)


def main():
    what = sys.argv[1] if len(sys.argv) == 2 else ""
    show = {"outputs": outputs, "outer-output": outer_output, "windows": windows}.get(what)
    if show is None:
        sys.exit("usage: sway-json.py outputs|outer-output|windows < JSON")
    try:
        doc = json.load(sys.stdin)
    except ValueError:
        sys.exit(1)
    show(doc)


if __name__ == "__main__":
    main()
