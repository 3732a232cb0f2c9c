#!/usr/bin/env python3
"""kopt import's audit: each test a suite runs, held against the spec `kopt import` wrote for it.

    python3 kopt_import_audit.py [--kopt build/cli/kopt] [--json OUT] [--quiet] DEFINITION...

DEFINITION is a LeetGPU challenge.py or a Tensara def.py (or a folder searched for them). Each
is imported with `kopt import` into a scratch folder; its test generators are run under the
stand-in torch of kopt_suite_shim.py (no torch, no GPU), and every test is looked for in the
spec, case by case:

  kept       a case with the test's scalars whose buffers have the test's element counts,
             dtypes, fills (an input's literal or edge data included) and no looser tolerance
  differs    a case with the test's scalars, but something of the above is not the test's
  left out   the import's notes name the test as left out ("test 7 (N=4) left out: why")
  dropped    no such case, and the notes do not name it

The tolerance is held once per problem: an integer output must be compared exactly, a
floating one no looser than the suite's atol and rtol. Tensara's outputs are shaped by the
reference's result, which the stand-in cannot compute: their shapes are not audited.

Prints one line per problem and the totals; with --json, writes them as JSON. Exit 0, or 1
with --strict where any test differs or is dropped (CI runs it on tests/fixtures/import/suites).
"""

import argparse
import ast
import json
import math
import os
import re
import subprocess
import sys
import tempfile

try:
    import tomllib  # Python 3.11
except ImportError:  # pragma: no cover - older Pythons with the backport
    try:
        import tomli as tomllib
    except ImportError:
        print("SKIPPED: the import audit reads kopt.toml with tomllib (Python 3.11) or tomli")
        sys.exit(77)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kopt_suite_shim  # noqa: E402

INTEGER_DTYPES = {"int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64", "bool"}


def spec_fill(text, dims):
    """A spec's init at a case's dims as a shim fill: ["uniform", lo, hi], ["int", lo, hi) ...;
    None when absent."""
    if text is None:
        return None
    text = text.replace(" ", "")
    if text in ("zeros", "ones"):
        return ["const", 0 if text == "zeros" else 1]
    if text == "normal":
        return ["normal", 0.0, 1.0]
    if text.startswith(("set(", "cat(")) and text.endswith(")"):
        return written_fill(text, dims)
    if text.startswith("sorted(") and text.endswith(")"):
        inner = spec_fill(text[len("sorted("):-1], dims)
        return ["sorted"] + inner if inner[0] != "unknown" else ["unknown", text]
    quantized = re.fullmatch(r"(mx_data|mx_scale|mx_scale_blocked)\((.*)\)", text)
    if quantized:  # mx_data(FILL, element, block, source[, rows, columns]), as the stand-in's to_mx records it
        return block_scaled_fill(quantized.group(1), split_top(quantized.group(2)), dims, text)
    arranged = re.fullmatch(r"(tril|triu|softmax|plus_eye|halves)\((.*)\)", text)
    if arranged:  # tril(FILL, n), softmax(FILL, n), plus_eye(FILL, n, v), as the stand-in records them
        parts = split_top(arranged.group(2))
        inner = spec_fill(parts[0], dims)
        if inner[0] == "unknown" or len(parts) != (3 if arranged.group(1) == "plus_eye" else 2):
            return ["unknown", text]
        numbers = [int(kopt_suite_shim.evaluate(parts[1], dims))] + \
            [float(kopt_suite_shim.evaluate(p, dims)) for p in parts[2:]]
        return [arranged.group(1)] + numbers + inner
    match = re.fullmatch(r"(normal|uniform|full|int|values|choice)([\[(])(.*)([\])])", text)
    if not match:
        return ["unknown", text]
    kind, open_, args, close = match.groups()
    numbers = [NON_FINITE[a] if kind == "values" and a in NON_FINITE else float(kopt_suite_shim.evaluate(a, dims))
               for a in split_top(args)]
    if kind == "full":
        return ["const", numbers[0]]
    if kind == "values":  # as the stand-in records a literal list (one value everywhere is a constant)
        return kopt_suite_shim.values_fill([int(n) if n.is_integer() else n for n in numbers])
    if kind == "int":
        return ["int", int(numbers[0]), int(numbers[1]) + (0 if (open_, close) == ("[", ")") else 1)]
    if kind == "choice":  # choice(a, b) is b half the time
        return ["choice", numbers[0], numbers[1], numbers[2] if len(numbers) > 2 else 0.5]
    return [kind] + numbers


# values(...)'s words for what no expression evaluates to (a floating buffer's edge data).
NON_FINITE = {"inf": math.inf, "+inf": math.inf, "-inf": -math.inf, "nan": math.nan}


def written_fill(text, dims):
    """set(FILL, v, SELECTOR...) and cat(FILL:n, ...) at a case's dims, as the stand-in records them:
    ["set", v, [selectors], *FILL] with each selector an index, ["slice", start, stop, step, width]
    or ["walk", start, lo, hi]; ["cat", [[n, FILL], ...]]."""
    number = lambda part: int(kopt_suite_shim.evaluate(part, dims))
    parts = split_top(text[len("set("):-1])
    if text.startswith("cat("):
        runs = [split_top_on(part, ":") for part in parts]
        fills = [(spec_fill(fill, dims), count) for fill, count in runs]
        return ["unknown", text] if any(f[0] == "unknown" for f, _ in fills) else ["cat", [[number(c), f] for f, c in fills]]
    inner = spec_fill(parts[0], dims)
    if inner[0] == "unknown" or len(parts) < 3:
        return ["unknown", text]
    selectors = []
    for part in parts[2:]:
        if part.startswith("walk("):
            selectors.append(["walk"] + [number(p) for p in split_top(part[len("walk("):-1])])
        elif ":" in part:
            pieces = split_top_on(part, ":") + ["1", "1"]
            start, stop = (None if p == "" else number(p) for p in pieces[:2])
            step, width = (1 if p == "" else number(p) for p in pieces[2:4])
            selectors.append(kopt_suite_shim.canonical_selector(["slice", start, stop, step, width], math.inf))
        else:
            selectors.append(number(part))
    value = float(kopt_suite_shim.evaluate(parts[1], dims))
    return ["set", int(value) if value.is_integer() else value, selectors] + inner


def split_top_on(text, separator):
    parts, depth, start = [], 0, 0
    for i, c in enumerate(text + separator):
        depth += c in "([" and 1 or c in ")]" and -1 or 0
        if c == separator and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    return parts


def block_scaled_fill(kind, parts, dims, text):
    """[kind, element, block, (rows, columns,) *source fill]: the source's name is left out (the
    stand-in cannot know it); block_scaled_pairs checks which buffers share one."""
    inner = spec_fill(parts[0], dims) if parts else ["unknown", text]
    if inner[0] == "unknown" or len(parts) != (6 if kind == "mx_scale_blocked" else 4):
        return ["unknown", text]
    sizes = [int(kopt_suite_shim.evaluate(p, dims)) for p in [parts[2]] + parts[4:]]
    return [kind, parts[1]] + sizes + inner


def block_scaled_pairs(spec, case, test):
    """Whether the buffers that hold halves of one quantization in the test (the same source) are
    the ones that name one source in the spec; a phrase where they are not."""
    in_test, in_spec = {}, {}
    for name, tensor in test["tensors"].items():
        text = (case["init"].get(name) or spec.buffers.get(name, {}).get("init") or "").replace(" ", "")
        if "source" in tensor and text.startswith("mx_"):
            in_test.setdefault(tensor["source"], set()).add(name)
            in_spec.setdefault(split_top(text[text.index("(") + 1:-1])[3], set()).add(name)
        elif "source" in tensor:
            return ["%s is half of a quantization in the test, not in the spec" % name]
    if sorted(map(sorted, in_test.values())) != sorted(map(sorted, in_spec.values())):
        return ["the quantizations' halves pair as %s in the test, %s in the spec"
                % (sorted(map(sorted, in_test.values())), sorted(map(sorted, in_spec.values())))]
    return []


def split_top(text):
    parts, depth, start = [], 0, 0
    for i, c in enumerate(text + ","):
        depth += c in "([" and 1 or c in ")]" and -1 or 0
        if c == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    return parts


def same_fill(suite, spec):
    """Whether kopt's fill draws what the suite's does (random parameters to 1e-9)."""
    if spec is None or suite[0] != spec[0] or len(suite) != len(spec):
        return False
    close = lambda a, b: a == b or (isinstance(a, (int, float)) and isinstance(b, (int, float)) and
                                    (math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12) or (math.isnan(a) and math.isnan(b))))
    return all(close(a, b) for a, b in zip(suite[1:], spec[1:]))


def fill_text(fill):
    if fill[0] == "values":  # a short list shown, so that two lists of one length tell apart
        listed = " (%s)" % ", ".join(str(v) for v in fill[1]) if len(fill[1]) <= 8 else ""
        return "%d literal values%s" % (len(fill[1]), listed)
    if fill[0] == "computed":
        return "computed data (%s)" % fill[1]
    return "%s(%s)" % (fill[0], ", ".join(str(x) for x in fill[1:])) if len(fill) > 1 else fill[0]


class Spec:
    """The imported kopt.toml, its cases with every dim and fill laid over."""

    def __init__(self, folder):
        with open(os.path.join(folder, "kopt.toml"), "rb") as f:
            self.toml = tomllib.load(f)
        base = dict(self.toml.get("dims", {}))
        self.cases = [{"name": "default", "dims": base, "init": {}}]
        for case in self.toml.get("cases", []):
            dims = dict(base)
            dims.update({k: v for k, v in case.items() if k not in ("name", "init")})
            self.cases.append({"name": case.get("name", ""), "dims": dims, "init": case.get("init", {})})
        self.buffers = self.toml.get("buffers", {})
        self.tolerance = self.toml.get("tolerance", {})

    def elements(self, buffer, dims):
        shape = self.buffers[buffer]["shape"]
        shape = shape if isinstance(shape, list) else [shape]
        return kopt_suite_shim.size_of(shape, dims)

    def fill(self, case, buffer):
        return spec_fill(case["init"].get(buffer, self.buffers[buffer].get("init")), case["dims"])

    def buffer_tolerance(self, buffer):
        entry = self.buffers[buffer]
        given = entry.get("tolerance") or {k: entry[k] for k in ("atol", "rtol") if k in entry}
        return dict(self.tolerance, **given) if given else dict(self.tolerance)


def same_number(a, b):
    return a == b or (isinstance(a, (int, float)) and isinstance(b, (int, float)) and math.isclose(a, b, rel_tol=1e-9))


def differences(spec, case, test, roles, shapes_known):
    """What of `test` the spec's `case` does not hold, one phrase each."""
    found = []
    for name, tensor in test["tensors"].items():
        if name not in spec.buffers:
            continue
        role = roles.get(name, "input")
        if shapes_known or role == "input":
            try:
                elements = spec.elements(name, case["dims"])
            except (KeyError, ValueError, ZeroDivisionError):
                elements = None
            if elements != math.prod(tensor["shape"]):
                found.append("%s has %s elements, the test %d" % (name, elements, math.prod(tensor["shape"])))
        pinned = spec.buffers[name].get("dtype")
        if pinned is None:
            found.append("%s's dtype (%s) is not pinned" % (name, tensor["dtype"]))
        elif pinned != kopt_dtype(tensor["dtype"]) and not same_bits(pinned, tensor):
            found.append("%s is %s, the test's %s" % (name, pinned, tensor["dtype"]))
        fill = spec.fill(case, name)
        if role == "output":
            if tensor["fill"][0] == "empty" and fill is not None:
                found.append("output %s starts at %s where the test leaves it uninitialised" % (name, fill_text(fill)))
            continue
        if not same_fill(tensor["fill"], fill):
            found.append("%s is %s, the test's %s" % (name, "filled with " + fill_text(fill) if fill else "kopt's default fill",
                                                     fill_text(tensor["fill"])))
    return found + block_scaled_pairs(spec, case, test)


# Integer dtypes by width; the signed one's range first.
INTEGER_WIDTHS = {"int8": 1, "uint8": 1, "int16": 2, "uint16": 2, "int32": 4, "uint32": 4, "int64": 8, "uint64": 8}


def same_bits(pinned, tensor):
    """Whether a literal integer tensor of one signedness holds the bits the spec's dtype of the
    other holds: a Tensara solution declares its shape array size_t (uint64) where the harness
    builds int64 extents; the kernel reads the same bytes, so the pinned type stands."""
    fill, dtype = tensor["fill"], kopt_dtype(tensor["dtype"])
    if INTEGER_WIDTHS.get(pinned) != INTEGER_WIDTHS.get(dtype) or fill[0] not in ("values", "const"):
        return False
    numbers = fill[1] if fill[0] == "values" else [fill[1]]
    limit = 2 ** (8 * INTEGER_WIDTHS[dtype] - 1)
    return all(isinstance(v, int) and 0 <= v < limit for v in numbers)


def kopt_dtype(name):
    return {"float8_e4m3fn": "float8_e4m3", "bool": "uint8"}.get(name, name)


def tolerance_differences(spec, suite_tolerance, outputs):
    found = []
    for name, dtype in outputs.items():
        if name not in spec.buffers:
            continue
        given = spec.buffer_tolerance(name)
        atol, rtol = given.get("atol"), given.get("rtol")
        if dtype in INTEGER_DTYPES:
            if atol != 0 or rtol != 0:
                found.append("integer output %s is not compared exactly (atol %s, rtol %s)" % (name, atol, rtol))
            continue
        for key in ("atol", "rtol"):
            if key in suite_tolerance and (given.get(key) is None or given[key] > suite_tolerance[key] * (1 + 1e-9)):
                found.append("%s's %s is %s, the suite's %s" % (name, key, given.get(key), suite_tolerance[key]))
    return found


def matching_cases(spec, test, tensara):
    if tensara:
        if test["index"] == 1:
            return [spec.cases[0]]
        return [c for c in spec.cases[1:] if c["name"] == test.get("name")]
    return [c for c in spec.cases
            if all(k in c["dims"] and same_number(c["dims"][k], v) for k, v in test["scalars"].items())]


def named_in(notes, test):
    """Whether a note of the import names this test as left out (`test 7 (N=4) left out: why`)."""
    return any(re.match(r"test %d \(.*\) left out: " % test["index"], note) for note in notes)


def audit_problem(kopt, definition, scratch):
    tensara = os.path.basename(definition) == "def.py"
    name = os.path.basename(os.path.dirname(os.path.abspath(definition)))
    out = os.path.join(scratch, name)
    result = {"problem": name, "suite": "tensara" if tensara else "leetgpu", "tests": 0, "kept": 0, "differs": 0,
              "left_out": 0, "dropped": 0, "findings": []}
    done = subprocess.run([kopt, "import", definition, "--out", out], capture_output=True, text=True)
    if done.returncode != 0:
        result["refused"] = (done.stderr.strip().splitlines() or ["(no message)"])[-1]
        return result
    notes = [line.split("note: ", 1)[1] for line in done.stdout.splitlines() if "note: " in line]
    try:
        record = (kopt_suite_shim.tensara if tensara else kopt_suite_shim.leetgpu)(definition)
    except kopt_suite_shim.ShimFailure as e:
        result["not_run"] = str(e)
        return result
    spec = Spec(out)
    facts = suite_facts(definition, tensara)
    tests = record["functional"] if tensara else [record["performance"]] + record["functional"]
    for test in tests:
        result["tests"] += 1
        label = "performance test" if test["index"] == 0 else "test %d" % test["index"]
        if named_in(notes, test):  # left out and said so (a case of the same sizes may check another test)
            result["left_out"] += 1
            continue
        cases = matching_cases(spec, test, tensara)
        if not cases:
            result["dropped"] += 1
            result["findings"].append("%s (%s) dropped without a note" % (label, scalars_text(test)))
            continue
        best = min((differences(spec, c, test, facts["roles"], not tensara) for c in cases), key=len)
        if best:
            result["differs"] += 1
            result["findings"].append("%s (%s): %s" % (label, scalars_text(test), "; ".join(best)))
        else:
            result["kept"] += 1
    outputs = {}
    for test in tests:
        for name, tensor in test["tensors"].items():
            if facts["roles"].get(name) in ("output", "inout"):
                outputs[name] = tensor["dtype"]
    for name, dtype in facts.get("output_dtypes", {}).items():
        outputs.setdefault(name, dtype)
    tolerance = tolerance_differences(spec, facts["tolerance"], outputs)
    result["tolerance_findings"] = tolerance
    result["findings"].extend(tolerance)
    return result


def scalars_text(test):
    return " ".join("%s=%s" % kv for kv in test["scalars"].items()) or test.get("name", "")


def suite_facts(definition, tensara):
    """Roles of the buffers and the suite's tolerance, read from the definition's own text."""
    tree = ast.parse(open(definition, encoding="utf-8").read())
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef))
    roles, tolerance, output_dtypes = {}, {}, {}
    if tensara:
        for node in cls.body:
            if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "parameters":
                for entry in ast.literal_eval(node.value):
                    if entry.get("pointer"):
                        roles[entry["name"]] = "input" if entry.get("const") else "output"
                        if not entry.get("const"):
                            output_dtypes[entry["name"]] = tensara_dtype(entry["type"])
        for node in ast.walk(cls):
            if isinstance(node, ast.Call) and ast.unparse(node.func).endswith("allclose"):
                for keyword in node.keywords:
                    if keyword.arg in ("atol", "rtol"):
                        try:
                            tolerance[keyword.arg] = ast.literal_eval(keyword.value)
                        except ValueError:
                            pass
    else:
        for node in cls.body:
            if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") in ("atol", "rtol"):
                tolerance[node.targets[0].id] = ast.literal_eval(node.value)
        for node in ast.walk(cls):
            if isinstance(node, ast.FunctionDef) and node.name == "get_solve_signature":
                for ret in ast.walk(node):
                    if isinstance(ret, ast.Return) and isinstance(ret.value, ast.Dict):
                        for key, value in zip(ret.value.keys, ret.value.values):
                            if isinstance(value, ast.Tuple) and "POINTER" in ast.unparse(value.elts[0]):
                                role = ast.literal_eval(value.elts[1])
                                roles[ast.literal_eval(key)] = {"in": "input", "out": "output"}.get(role, role)
    return {"roles": roles, "tolerance": tolerance, "output_dtypes": output_dtypes}


def tensara_dtype(ctype):
    return {"float": "float32", "double": "float64", "int": "int32", "int32_t": "int32", "int64_t": "int64",
            "uint8_t": "uint8", "int8_t": "int8", "uint32_t": "uint32", "bool": "bool"}.get(ctype, "float32")


def definitions(paths):
    for path in paths:
        if os.path.isdir(path):
            for root, _, files in sorted(os.walk(path)):
                for f in sorted(files):
                    if f in ("challenge.py", "def.py"):
                        yield os.path.join(root, f)
        else:
            yield path


TOTAL_KEYS = ("tests", "kept", "differs", "left_out", "dropped")


def totals(results):
    found = {}
    for suite in sorted({r["suite"] for r in results}):
        mine = [r for r in results if r["suite"] == suite]
        found[suite] = {"problems": len(mine), "refused": sum("refused" in r for r in mine),
                        "not_run": sum("not_run" in r for r in mine),
                        "audited": sum("refused" not in r and "not_run" not in r for r in mine),
                        "clean": sum("refused" not in r and "not_run" not in r and not r["findings"] for r in mine),
                        "tolerance_findings": sum(len(r.get("tolerance_findings", [])) for r in mine)}
        for key in TOTAL_KEYS:
            found[suite][key] = sum(r[key] for r in mine)
    return found


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("definitions", nargs="+")
    parser.add_argument("--kopt", default=os.environ.get("KOPT", "build/cli/kopt"))
    parser.add_argument("--json")
    parser.add_argument("--quiet", action="store_true", help="totals only")
    parser.add_argument("--strict", action="store_true", help="exit 1 where a test differs or is dropped")
    options = parser.parse_args(argv[1:])
    results = []
    with tempfile.TemporaryDirectory(prefix="kopt-audit-") as scratch:
        for definition in definitions(options.definitions):
            result = audit_problem(options.kopt, definition, scratch)
            results.append(result)
            if options.quiet:
                continue
            if "refused" in result or "not_run" in result:
                print("%-40s %s" % (result["problem"], "refused: " + result["refused"] if "refused" in result
                                    else "not audited: " + result["not_run"]))
                continue
            print("%-40s %d tests: %d kept, %d differ, %d left out (named), %d dropped" %
                  (result["problem"], result["tests"], result["kept"], result["differs"], result["left_out"],
                   result["dropped"]))
            for finding in result["findings"]:
                print("    " + finding)
    summary = totals(results)
    for suite, t in summary.items():
        print("%s: %d problems, %d imported and audited (%d with no finding), %d refused, %d not run under the "
              "stand-in; %d tests: %d kept, %d differ, %d left out and named, %d dropped; %d tolerance findings"
              % (suite, t["problems"], t["audited"], t["clean"], t["refused"], t["not_run"], t["tests"], t["kept"],
                 t["differs"], t["left_out"], t["dropped"], t["tolerance_findings"]))
    if options.json:
        with open(options.json, "w") as f:
            json.dump({"problems": results, "totals": summary}, f, indent=1)
    failing = any(r["differs"] or r["dropped"] or r.get("tolerance_findings") for r in results)
    return 1 if options.strict and failing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
