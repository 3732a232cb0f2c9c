#!/usr/bin/env python3
"""report_in_browser.py KOPT REPO [--screenshots DIR]

Renders kopt's pages in headless Chromium, as a person would see them:
- report.html of the real H200 run (tests/fixtures/loop/h200_sgemm_tiled_run), which kept no
  per-sample files: its distribution chart must say so in a line of text;
- report.html of a fresh run on the simulated lab, which keeps every sample: its distribution
  chart must draw each of them;
- compare.html of the two (kopt report --compare).
Fails unless every chart is drawn (an SVG with marks, of non-zero size), nothing overflows
the page and no two texts of a chart overlap as the browser laid them out (their rendered
boxes, in its fonts: the C++ unit test checks kopt's own estimate of the same boxes). With --screenshots, keeps a PNG of each chart type in DIR (docs/img). Skips (77)
without Chromium.
"""
import json, os, re, shutil, subprocess, sys, tempfile

REPORT_CHARTS = ["roofline", "speedup", "gaps", "methods", "medians", "samples"]
COMPARE_CHARTS = ["speedup", "final"]

# Injected into a copy of the page (the pages themselves have no scripts): measures each chart
# after layout and writes the findings into the DOM, which --dump-dom prints.
PROBE = """<script>
// Every pair of the chart's texts whose rendered boxes (as laid out, in this browser's font,
// after any rotation) intersect by more than half a pixel each way.
function overlapping_texts(svg) {
  const boxes = Array.from(svg.querySelectorAll('text'))
      .filter(t => t.textContent.trim() !== '')
      .map(t => ({text: t.textContent, box: t.getBoundingClientRect()}));
  const found = [];
  for (let i = 0; i < boxes.length; ++i) {
    for (let j = i + 1; j < boxes.length; ++j) {
      const a = boxes[i].box, b = boxes[j].box;
      const dx = Math.min(a.right, b.right) - Math.max(a.left, b.left);
      const dy = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
      if (dx > 0.5 && dy > 0.5) found.push([boxes[i].text, boxes[j].text]);
    }
  }
  return {texts: boxes.length, pairs: found};
}
window.addEventListener('load', () => {
  const view = document.documentElement.clientWidth;
  const out = {page_overflow: document.documentElement.scrollWidth > view, charts: {}};
  for (const id of %s) {
    const svg = document.querySelector('section#' + id + ' svg');
    if (!svg) { out.charts[id] = {drawn: false}; continue; }
    const box = svg.getBoundingClientRect();
    out.charts[id] = {drawn: box.width > 0 && box.height > 0 && svg.querySelectorAll('rect,line,path,circle,polyline').length > 0,
                      overflow: box.right > view + 0.5, width: box.width, height: box.height,
                      samples: svg.querySelectorAll('circle.sample').length,
                      notes: Array.from(svg.querySelectorAll('text.note')).map(t => t.textContent),
                      overlaps: overlapping_texts(svg)};
  }
  out.tables_overflow = Array.from(document.querySelectorAll('table')).some(t => t.getBoundingClientRect().right > view + 0.5);
  const pre = document.createElement('pre'); pre.id = 'kopt-probe'; pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
});
</script>"""


class ChromiumMissing(Exception):
    pass


def chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if shutil.which(name):
            return shutil.which(name)
    return None


def run_browser(browser, *args):
    cmd = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--hide-scrollbars", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120)


def probe_page(browser, work, name, html, charts):
    """The probe's findings on `html` laid out in a 1280-pixel window."""
    probe = os.path.join(work, name + "_probe.html")
    open(probe, "w").write(html.replace("</body>", PROBE % json.dumps(charts) + "</body>"))
    rendered = run_browser(browser, "--window-size=1280,2000", "--virtual-time-budget=5000", "--dump-dom", "file://" + probe)
    dom = rendered.stdout
    if rendered.returncode != 0 and "<html" not in dom:
        # The browser itself could not start here (no display libraries, no shared memory):
        # that is the environment, not the report.
        raise ChromiumMissing("chromium could not start:\n" + rendered.stderr[-2000:])
    found = re.search(r'<pre id="kopt-probe">(.*?)</pre>', dom, re.S)
    if not found:
        return None
    return json.loads(found.group(1).replace("&quot;", '"').replace("&amp;", "&"))


def layout_problems(page, result):
    if result is None:
        return [f"{page}: the probe did not run"]
    print(page, json.dumps(result, indent=1, ensure_ascii=False))
    problems = []
    for chart, r in result["charts"].items():
        # The distribution chart of a run that kept no samples is one line of text (checked below).
        if not r.get("drawn") and not (chart == "samples" and r.get("notes")):
            problems.append(f"{page}: {chart}: not drawn")
        if r.get("overflow"):
            problems.append(f"{page}: {chart}: overflows the page")
        for a, b in r.get("overlaps", {}).get("pairs", []):
            problems.append(f"{page}: {chart}: the text \"{a}\" overlaps \"{b}\" as rendered")
    if result["page_overflow"]:
        problems.append(f"{page}: the page is wider than the window")
    if result.get("tables_overflow"):
        problems.append(f"{page}: a table overflows the page")
    return problems


def sample_problems(page, result, expected_samples):
    """The distribution chart draws every kept sample, or says in one line that none were kept."""
    if result is None:
        return []
    chart = result["charts"].get("samples", {})
    if expected_samples == 0:
        notes = chart.get("notes", [])
        if chart.get("samples") or len(notes) != 1 or "Samples not available" not in notes[0]:
            return [f"{page}: samples: no samples were kept, and the chart does not say so in one line ({notes})"]
        return []
    if chart.get("samples") != expected_samples or not chart.get("drawn"):
        return [f"{page}: samples: {chart.get('samples')} sample dots drawn, {expected_samples} kept"]
    return []


# A chart whose two labels collide, and whose third stands clear: the probe must find the one
# pair, or a report's overlaps would go unseen.
CONTROL = ('<!DOCTYPE html><html><body><section id="control"><svg xmlns="http://www.w3.org/2000/svg" '
           'width="300" height="100"><rect width="300" height="100" fill="none"/>'
           '<text x="10" y="30" font-size="12">iter1 champion 39.9</text>'
           '<text x="40" y="34" font-size="12">iter2 champion 40.3</text>'
           '<text x="10" y="80" font-size="12">baseline</text></svg></section></body></html>')


def control_problems(browser, work):
    result = probe_page(browser, work, "control", CONTROL, ["control"])
    pairs = (result or {}).get("charts", {}).get("control", {}).get("overlaps", {}).get("pairs")
    if pairs != [["iter1 champion 39.9", "iter2 champion 40.3"]]:
        return [f"control: the overlap probe found {pairs} in a chart with one colliding pair"]
    return []


def kept_sample_count(run):
    """Every sample behind the baseline's and the best's median: what the chart must draw."""
    summary = json.load(open(os.path.join(run, "summary.json")))
    count = len(json.load(open(os.path.join(run, "baseline", "baseline_bench.json")))["variants"][0]["samples_seconds"])
    best = summary["best_iteration"]
    if best:
        label = json.load(open(os.path.join(run, f"iter{best}", "champion", "bench.json")))["label"]
        finals = json.load(open(os.path.join(run, f"iter{best}", "finals_bench.json")))
        count += len(next(v for v in finals["variants"] if v["label"] == label)["samples_seconds"])
    return count


def screenshot(browser, work, html, chart, png):
    svg = re.search(r'<section id="%s">.*?(<svg.*?</svg>)' % chart, html, re.S).group(1)
    width, height = (int(float(v)) for v in re.search(r'width="([\d.]+)" height="([\d.]+)"', svg).groups())
    page = os.path.join(work, os.path.basename(png) + ".html")
    open(page, "w").write('<!DOCTYPE html><html><body style="margin:0;background:#fff">' + svg + "</body></html>")
    run_browser(browser, f"--window-size={width},{height}", f"--screenshot={png}", "file://" + page)


def copy_fixture_run(repo, work, fixture, example):
    """A copy of a run recorded on the GPU machine, pointed at this checkout's example, whose
    spec gives the work per call that places every variant on the roofline."""
    run = os.path.join(work, fixture)
    shutil.copytree(os.path.join(repo, "tests", "fixtures", "loop", fixture), run)
    state_file = os.path.join(run, "state.json")
    state = json.load(open(state_file))
    state["kernel"] = os.path.join(repo, "examples", example, example + ".cu")
    state["spec"] = os.path.join(repo, "examples", example, "kopt.toml")
    json.dump(state, open(state_file, "w"), indent=2)
    return run


def main():
    kopt, repo = sys.argv[1], sys.argv[2]
    shots = sys.argv[sys.argv.index("--screenshots") + 1] if "--screenshots" in sys.argv else None
    browser = chromium()
    if not browser:
        print("SKIPPED: no chromium (apt install chromium)")
        return 77
    work = tempfile.mkdtemp()
    real = copy_fixture_run(repo, work, "h200_sgemm_tiled_run", "sgemm_tiled")
    reduction = copy_fixture_run(repo, work, "h200_reduction_run", "reduction")
    simulated = os.path.join(work, "simulated_run")
    subprocess.run([kopt, "optimize", os.path.join(repo, "examples", "sgemm_tiled"), "--run", simulated, "--iterations", "3",
                    "--simulate", os.path.join(repo, "tests", "fixtures", "loop", "sgemm_tiled_model.json")],
                   check=True, capture_output=True)
    pages = {}
    for name, run in (("report_h200", real), ("report_reduction", reduction), ("report_simulated", simulated)):
        subprocess.run([kopt, "report", run], check=True)
        pages[name] = open(os.path.join(run, "report.html")).read()
    subprocess.run([kopt, "report", "--compare", real, simulated, "--out", os.path.join(work, "compare")], check=True)
    pages["compare"] = open(os.path.join(work, "compare", "compare.html")).read()

    problems = []
    try:
        problems += control_problems(browser, work)
        for name, charts, samples in (("report_h200", REPORT_CHARTS, 0), ("report_reduction", REPORT_CHARTS, kept_sample_count(reduction)),
                                      ("report_simulated", REPORT_CHARTS, kept_sample_count(simulated)),
                                      ("compare", COMPARE_CHARTS, None)):
            result = probe_page(browser, work, name, pages[name], charts)
            problems += layout_problems(name, result)
            if samples is not None:
                problems += sample_problems(name, result, samples)
    except ChromiumMissing as e:
        print("SKIPPED:", e)
        return 77
    if shots:
        os.makedirs(shots, exist_ok=True)
        for chart in REPORT_CHARTS[:-1]:
            screenshot(browser, work, pages["report_h200"], chart, os.path.join(shots, f"report_{chart}.png"))
        # The real run kept no samples: the distribution is shown on the simulated run's.
        screenshot(browser, work, pages["report_simulated"], "samples", os.path.join(shots, "report_samples.png"))
        for chart in COMPARE_CHARTS:
            screenshot(browser, work, pages["compare"], chart, os.path.join(shots, f"compare_{chart}.png"))
    for p in problems:
        print("FAIL:", p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
