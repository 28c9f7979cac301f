#!/usr/bin/env python3
"""`xtune report` rendered in headless Chromium (Debian's chromium).

Tunes two example modules on the CPU, writing their caches and autotuning
logs, adds a stale entry, writes the report, opens it in Chromium over the
DevTools protocol and checks what the page shows:
  - it makes no request (the only URL loaded is the page itself) and logs
    nothing (no blocked load, no Content-Security-Policy violation);
  - every fusion of the logs has its section, its candidate chart and a
    visible size, in the logs' order; the stale entry is listed;
  - the screenshot is not blank, and the heatmap is drawn in colour with
    the chosen cell outlined.
Control pages first prove that the checks can fail: one that loads an image
and a stylesheet is caught, a blank one is blank.

usage: report_chromium_test.py XTUNE SOURCE_DIR WORK_DIR
Exit 77 (skipped) when no Chromium is installed.
"""

import json
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cdp  # noqa: E402
import png  # noqa: E402

CHOSEN_BLUE = (31, 79, 209)

STALE_ENTRY = r'''version: 3
results {
  device: "CPU: an older build"
  hlo: "{\n  tmp_0 = f32[4]{0} parameter(0)\n  ROOT tmp_1 = f32[4]{0} negate(f32[4]{0} tmp_0)\n}"
  version: 3
  result { run_time { nanos: 900 } cpu_streaming { vector_width: 8 unroll: 1 per_task: 64 threads: 1 } }
}
'''


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    if r.returncode != 0:
        sys.exit("FAILED: %s\n%s%s" % (" ".join(cmd), r.stdout, r.stderr))
    return r.stdout


def check(ok, what):
    if not ok:
        sys.exit("FAILED: " + what)
    print("ok: " + what)


def fusions_of(log_path):
    with open(log_path) as f:
        return re.findall(r'^  fusion: "(.*)"$', f.read(), re.M)


def screenshot_of(browser, selector):
    """The element's pixels (the first match), decoded."""
    box = browser.evaluate(
        "(() => { const r = document.querySelector(%s).getBoundingClientRect();"
        " return [r.x + scrollX, r.y + scrollY, r.width, r.height]; })()" % json.dumps(selector))
    shot = browser.send("Page.captureScreenshot", {
        "format": "png", "captureBeyondViewport": True,
        "clip": {"x": box[0], "y": box[1], "width": box[2], "height": box[3], "scale": 1}})
    import base64
    return png.decode(base64.b64decode(shot["data"]))[2]


def viewport_pixels(browser):
    import base64
    shot = browser.send("Page.captureScreenshot", {"format": "png"})
    return png.decode(base64.b64decode(shot["data"]))[2]


def main():
    xtune, source, work = sys.argv[1:4]
    chromium = cdp.find_chromium()
    if chromium is None:
        print("SKIPPED: no Chromium (Debian package chromium; scripts/install_deps.sh installs it)")
        return 77
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    cache = os.path.join(work, "cache.textproto")
    logs = []
    for name in ("mlp", "layer_norm"):
        log = os.path.join(work, name + ".log")
        out = os.path.join(work, name + ".textproto")
        run([xtune, "compile", os.path.join(source, "examples", name + ".hlo"),
             "--xla_gpu_dump_autotune_results_to=" + out,
             "--xla_gpu_dump_autotune_logs_to=" + log])
        logs.append(log)
    stale = os.path.join(work, "stale.textproto")
    with open(stale, "w") as f:
        f.write(STALE_ENTRY)
    run([xtune, "cache", "merge", os.path.join(work, "mlp.textproto"),
         os.path.join(work, "layer_norm.textproto"), stale, "--out=" + cache])
    page = os.path.join(work, "report.html")
    print(run([xtune, "report", cache] + logs + ["--output=" + page]).strip())
    expected = [f for log in logs for f in fusions_of(log)]
    check(len(expected) >= 3, "the logs hold %d tuned fusions" % len(expected))

    browser = cdp.Browser(chromium)
    try:
        # Controls: the checks below can fail.
        control = os.path.join(work, "control.html")
        with open(control, "w") as f:
            f.write('<html><body><img src="pixel.png">'
                    '<link rel="stylesheet" href="http://example.invalid/x.css"></body></html>')
        browser.open("file://" + control)
        check(len(browser.requests()) == 3, "a page that loads an image and a stylesheet is caught "
              "making 2 requests: %s" % browser.requests())
        blank = os.path.join(work, "blank.html")
        with open(blank, "w") as f:
            f.write("<html><body></body></html>")
        browser.open("file://" + blank)
        check(png.ink(viewport_pixels(browser))[0] == 0, "a blank page's screenshot is blank")

        url = "file://" + page
        browser.open(url, width=1400, height=1000)
        check(browser.requests() == [url], "the report makes no request: %s" % browser.requests())
        check(browser.console() == [], "the report logs nothing: %s" % browser.console())
        shown = browser.evaluate(
            "[...document.querySelectorAll('section.fusion')].map(s => s.dataset.fusion)")
        check(shown == expected, "every fusion of the logs has a section, in order: %s" % shown)
        sizes = browser.evaluate(
            "[...document.querySelectorAll('section.fusion')].map(s => {"
            " const svg = s.querySelector('svg.dist'); if (!svg) return null;"
            " const r = svg.getBoundingClientRect();"
            " return [svg.querySelectorAll('g.cand').length, r.width, r.height]; })")
        check(all(s and s[0] >= 1 and s[1] > 300 and s[2] > 30 for s in sizes),
              "every fusion's candidate chart is drawn with its rows: %s" % sizes)
        chosen = browser.evaluate("document.querySelectorAll('svg.dist g.cand.chosen').length")
        check(chosen == len(expected), "each chart marks its chosen candidate (%d)" % chosen)
        text = browser.evaluate("document.body.innerText")
        check("1 stale entries" in text and "CPU: an older build" in text,
              "the stale entry is listed")
        check(browser.evaluate("document.querySelectorAll('svg.heatmap').length") >= 1,
              "the CPU gemm's space has a heatmap")

        share, colours = png.ink(viewport_pixels(browser))
        check(share > 0.05 and colours > 50,
              "the screenshot is not blank (%.1f%% ink, %d colours)" % (share * 100, colours))
        heat = screenshot_of(browser, "svg.heatmap")
        fills = browser.evaluate(
            "[...new Set([...document.querySelector('svg.heatmap').querySelectorAll("
            "'g.cell:not(.empty):not(.failed) rect')].map(r => r.getAttribute('fill')))]")
        rgb = [tuple(int(f[i:i + 2], 16) for i in (1, 3, 5)) for f in fills]
        check(len(rgb) >= 2 and all(png.has_colour_near(heat, c, tolerance=8, at_least=200)
                                    for c in rgb),
              "the heatmap's cells are painted in their %d colours" % len(rgb))
        row = screenshot_of(browser, "svg.dist g.cand.chosen")
        check(png.has_colour_near(row, CHOSEN_BLUE, at_least=10),
              "the chosen candidate's row is marked in blue")
    finally:
        browser.close()
    print("report_chromium_test: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
