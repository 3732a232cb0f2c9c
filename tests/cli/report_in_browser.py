#!/usr/bin/env python3
"""report_in_browser.py KOPT RUN_FIXTURE [--screenshots DIR]

Renders a run's report.html in headless Chromium, as a person would see it, and fails unless
every chart is drawn (an SVG with marks, of non-zero size) and nothing overflows the page.
With --screenshots, keeps a PNG of each chart type in DIR (docs/img). Skips (77) without
Chromium.
"""
import json, os, re, shutil, subprocess, sys, tempfile

CHARTS = ["roofline", "speedup", "gaps", "methods", "medians"]

# Injected into a copy of the page (the report itself has no scripts): measures each chart
# after layout and writes the findings into the DOM, which --dump-dom prints.
PROBE = """<script>
window.addEventListener('load', () => {
  const view = document.documentElement.clientWidth;
  const out = {page_overflow: document.documentElement.scrollWidth > view, charts: {}};
  for (const id of %s) {
    const svg = document.querySelector('section#' + id + ' svg');
    if (!svg) { out.charts[id] = {drawn: false}; continue; }
    const box = svg.getBoundingClientRect();
    out.charts[id] = {drawn: box.width > 0 && box.height > 0 && svg.querySelectorAll('rect,line,path,circle,polyline').length > 0,
                      overflow: box.right > view + 0.5, width: box.width, height: box.height};
  }
  const pre = document.createElement('pre'); pre.id = 'kopt-probe'; pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
});
</script>"""


def chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if shutil.which(name):
            return shutil.which(name)
    return None


def run_browser(browser, *args):
    cmd = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--hide-scrollbars", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120)


def main():
    kopt, fixture = sys.argv[1], sys.argv[2]
    shots = sys.argv[sys.argv.index("--screenshots") + 1] if "--screenshots" in sys.argv else None
    browser = chromium()
    if not browser:
        print("SKIPPED: no chromium (apt install chromium)")
        return 77
    work = tempfile.mkdtemp()
    run = os.path.join(work, "run")
    shutil.copytree(fixture, run)
    subprocess.run([kopt, "report", run], check=True)
    html = open(os.path.join(run, "report.html")).read()
    probe = os.path.join(work, "probe.html")
    open(probe, "w").write(html.replace("</body>", PROBE % json.dumps(CHARTS) + "</body>"))
    rendered = run_browser(browser, "--window-size=1280,2000", "--virtual-time-budget=5000", "--dump-dom", "file://" + probe)
    dom = rendered.stdout
    if rendered.returncode != 0 and "<html" not in dom:
        # The browser itself could not start here (no display libraries, no shared memory):
        # that is the environment, not the report.
        print("SKIPPED: chromium could not start:\n" + rendered.stderr[-2000:])
        return 77
    found = re.search(r'<pre id="kopt-probe">(.*?)</pre>', dom, re.S)
    if not found:
        print("the probe did not run; chromium printed:\n" + dom[:2000])
        return 1
    result = json.loads(found.group(1).replace("&quot;", '"'))
    print(json.dumps(result, indent=1))
    problems = [f"{c}: not drawn" for c, r in result["charts"].items() if not r.get("drawn")]
    problems += [f"{c}: overflows the page" for c, r in result["charts"].items() if r.get("overflow")]
    if result["page_overflow"]:
        problems.append("the page is wider than the window")
    if shots:
        os.makedirs(shots, exist_ok=True)
        for chart in CHARTS:
            svg = re.search(r'<section id="%s">.*?(<svg.*?</svg>)' % chart, html, re.S).group(1)
            width, height = (int(float(v)) for v in re.search(r'width="([\d.]+)" height="([\d.]+)"', svg).groups())
            page = os.path.join(work, chart + ".html")
            open(page, "w").write('<!DOCTYPE html><html><body style="margin:0;background:#fff">' + svg + "</body></html>")
            run_browser(browser, f"--window-size={width},{height}", f"--screenshot={os.path.join(shots, 'report_' + chart + '.png')}",
                        "file://" + page)
    for p in problems:
        print("FAIL:", p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
