"""Tests of the reference runner's timing mode without torch or a GPU: the stopping rule and
the sampling loop with an injected timer, a stand-in for torch's CUDA calls, and the JSON a
numpy run gives ("not timed", never a number)."""

import importlib.util
import json
import os
import re
import subprocess
import sys

import numpy as np
import pytest

RUNNER = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, os.pardir,
                      "python", "kopt_reference_runner.py")


def load_runner():
    spec = importlib.util.spec_from_file_location("kopt_reference_runner_under_test", RUNNER)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


runner = load_runner()


def settings(**overrides):
    return runner.time_settings({"time": overrides})


class FakeClock:
    """Wall time that moves only when told to."""

    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


def constant_sampler(clock, seconds, host_extra=1e-5):
    def take():
        clock.now += seconds + host_extra
        return seconds, seconds + host_extra
    return take


# ---------------------------------------------------------------- the stopping rule

def test_settings_default_to_kopts_stopping_settings():
    got = settings()
    assert got["mode"] == "cold" and got["target_half_width"] == 0.0025
    assert got["min_samples"] == 10 and got["min_gpu_seconds"] == 0.01
    assert got["timeout_seconds"] == 15 and got["warmup_calls"] == 1
    assert got["resolution_seconds"] == 0 and got["budget_seconds"] == 0
    assert runner.time_settings({}) is None


@pytest.mark.parametrize("time, message", [
    ({"mode": "hot"}, "time mode must be"),
    ({"min_samples": -1}, "min_samples must be a non-negative number"),
    ({"l2_bytes": True}, "l2_bytes must be a non-negative number"),
    ({"l2_flush": "erase"}, "l2_flush must be \"read\" or \"write\""),
    ({"samples": 3}, "unknown \"time\" field(s) samples"),
    ([], "\"time\" must be an object"),
])
def test_bad_time_settings(time, message):
    with pytest.raises(runner.RunnerError, match=re.escape(message)):
        runner.time_settings({"time": time})


def test_steady_samples_stop_once_count_and_gpu_time_are_reached():
    clock = FakeClock()
    result = runner.sample_until_stopped(constant_sampler(clock, 0.01),
                                         settings(min_samples=10, min_gpu_seconds=0.5), clock)
    assert result["stop_reason"] == "median_precise"
    assert len(result["samples_seconds"]) == 50  # 0.5 s of GPU time at 10 ms each
    assert len(result["host_seconds"]) == 50
    assert result["host_seconds"][0] == pytest.approx(0.01 + 1e-5)


def test_minimum_sample_count_holds_for_long_samples():
    clock = FakeClock()
    result = runner.sample_until_stopped(constant_sampler(clock, 1.0), settings(min_samples=10),
                                         clock)
    assert result["stop_reason"] == "median_precise" and len(result["samples_seconds"]) == 10


def alternating_sampler(clock, pattern, wall_per_sample):
    taken = []

    def take():
        seconds = pattern[len(taken) % len(pattern)]
        taken.append(seconds)
        clock.now += wall_per_sample
        return seconds, seconds
    return take


def test_a_spread_median_stops_when_its_interval_is_narrow_enough():
    # Two values 20 % apart, alternating: the median sits on one of them (or between) until the
    # order statistics of its interval agree, whatever the 10 % spread of the samples.
    clock = FakeClock()
    pattern = [0.9e-3, 1.1e-3, 1.0e-3, 1.0e-3, 1.0e-3]
    result = runner.sample_until_stopped(alternating_sampler(clock, pattern, 1e-3),
                                         settings(min_gpu_seconds=0), clock)
    assert result["stop_reason"] == "median_precise"
    assert len(result["samples_seconds"]) < 40


def test_a_two_valued_spread_stops_at_the_timeout():
    clock = FakeClock()
    result = runner.sample_until_stopped(alternating_sampler(clock, [0.9e-3, 1.1e-3], 0.1),
                                         settings(timeout_seconds=2, min_gpu_seconds=0), clock)
    # The median's interval always spans both values: 20 samples, then the timeout.
    assert result["stop_reason"] == "timeout" and len(result["samples_seconds"]) == 20


def test_a_tick_as_coarse_as_the_target_stops_as_resolution_limited():
    clock = FakeClock()
    result = runner.sample_until_stopped(constant_sampler(clock, 2e-6),
                                         settings(min_gpu_seconds=0, resolution_seconds=32e-9), clock)
    # Every reading alike, but one 32 ns tick is 1.6 % of 2 us: not precise, and no more samples help.
    assert result["stop_reason"] == "resolution_limited" and len(result["samples_seconds"]) == 10


def test_a_budgeted_reference_stops_once_it_took_the_kernels_time():
    clock = FakeClock()
    result = runner.sample_until_stopped(alternating_sampler(clock, [0.9e-3, 1.1e-3], 1e-3),
                                         settings(min_gpu_seconds=0, budget_seconds=7e-3), clock)
    # Never precise; 7 samples hold 6.9 ms, the 8th passes the 7 ms the kernel took.
    assert result["stop_reason"] == "budget_spent" and len(result["samples_seconds"]) == 8


def test_max_samples_comes_first():
    clock = FakeClock()
    result = runner.sample_until_stopped(constant_sampler(clock, 1e-6),
                                         settings(max_samples=7, min_samples=10), clock)
    assert result["stop_reason"] == "max_samples" and len(result["samples_seconds"]) == 7


def test_interval_ranks_match_kopts():
    # n = 10 at 95 %: [x_(2), x_(9)] (statistics.hpp), so the half-width is 2 from the median 5.5.
    criterion = runner.StoppingCriterion(settings())
    for x in range(1, 11):
        criterion.add_sample(float(x))
    assert criterion.statistical_half_width() == pytest.approx(3.5 / 5.5)


# ---------------------------------------------------------------- a stand-in for torch

class FakeTorch:
    """The few torch calls TorchSampler makes, on a fake clock: a call costs 2 ms."""

    uint8 = "uint8"

    def __init__(self, clock):
        self.clock = clock
        self.log = []
        fake = self

        class Event:
            def __init__(self, enable_timing=False):
                assert enable_timing
                self.at = None

            def record(self):
                self.at = fake.clock.now
                fake.log.append("record")

            def elapsed_time(self, other):
                return (other.at - self.at) * 1e3  # milliseconds, like torch

        class Cuda:
            @staticmethod
            def synchronize():
                fake.log.append("synchronize")

        Cuda.Event = Event
        self.cuda = Cuda

    def empty(self, n, dtype, device):
        assert dtype == self.uint8 and device == "cuda"
        fake = self

        class Buffer:
            size = n

            def fill_(self, value):
                fake.log.append("flush %d" % value)

            def sum(self):
                fake.log.append("read flush")
        return Buffer()


def test_torch_sampler_flushes_then_brackets_one_call_with_events_and_a_device_sync():
    clock = FakeClock()
    torch = FakeTorch(clock)

    def call():
        torch.log.append("call")
        clock.now += 2e-3
    sampler = runner.TorchSampler(torch, call, "cold", 50 << 20, clock,
                                  prepare=lambda: torch.log.append("restore in-out"), l2_flush="write")
    assert sampler.flush.size == 50 << 20
    gpu, host = sampler()
    assert torch.log == ["restore in-out", "flush 1", "synchronize", "record", "call", "record",
                         "synchronize"]
    assert gpu == pytest.approx(2e-3) and host == pytest.approx(2e-3)
    sampler()
    assert torch.log[8] == "flush 2"  # a different byte each time


def test_the_default_cold_flush_reads_the_buffer():
    clock = FakeClock()
    torch = FakeTorch(clock)
    sampler = runner.TorchSampler(torch, lambda: None, "cold", 100 << 20, clock)
    sampler()
    assert torch.log[:2] == ["read flush", "synchronize"]


def test_warm_mode_does_not_flush():
    clock = FakeClock()
    torch = FakeTorch(clock)
    sampler = runner.TorchSampler(torch, lambda: None, "warm", 50 << 20, clock)
    sampler()
    assert sampler.flush is None and not any(e.startswith("flush") for e in torch.log)


# ---------------------------------------------------------------- the numpy backend

def run_manifest(tmp_path, time):
    reference = tmp_path / "ref.py"
    reference.write_text("def reference(x, y):\n    y[...] = 2 * x\n")
    np.save(tmp_path / "x.npy", np.arange(4, dtype=np.float32))
    manifest = {"reference": str(reference), "device": "cpu", "time": time, "params": [
        {"name": "x", "kind": "buffer", "dtype": "float32", "shape": [4], "role": "input",
         "path": str(tmp_path / "x.npy")},
        {"name": "y", "kind": "buffer", "dtype": "float32", "shape": [4], "role": "output",
         "output_path": str(tmp_path / "out" / "y.npy")}]}
    (tmp_path / "manifest.json").write_text(json.dumps(manifest))
    return subprocess.run([sys.executable, RUNNER, str(tmp_path / "manifest.json")],
                          capture_output=True, text=True, timeout=120)


def test_numpy_reference_is_not_timed_and_says_why(tmp_path):
    process = run_manifest(tmp_path, {"mode": "cold", "l2_bytes": 1 << 20})
    assert process.returncode == 0, process.stderr
    summary = json.loads(process.stdout)
    assert summary["timing"] == {"backend": "numpy", "device": "cpu", "interleaved": False,
                                 "timed": False,
                                 "reason": "not timed: numpy reference runs on the CPU"}
    # The outputs are still there for verification.
    np.testing.assert_array_equal(np.load(tmp_path / "out" / "y.npy"), [0, 2, 4, 6])


def test_bad_time_object_is_refused_before_the_reference_runs(tmp_path):
    process = run_manifest(tmp_path, {"mode": "hot"})
    assert process.returncode == 2
    assert "REFERENCE_ERROR: manifest: time mode must be" in process.stderr
    assert not (tmp_path / "out").exists()


def test_in_out_buffers_are_put_back_before_each_call():
    x = np.arange(3, dtype=np.float32)
    kwargs = {"x": x, "n": 3}
    params = [{"name": "x", "kind": "buffer", "role": "inout"}, {"name": "n", "kind": "scalar"}]
    restore = runner.in_out_restorer(runner.NumpyBackend(np, []), kwargs, params)
    x += 10  # what a reference call does to an in-out buffer
    restore()
    np.testing.assert_array_equal(kwargs["x"], [0, 1, 2])
    assert kwargs["x"] is x  # in place: the reference keeps getting the same buffer


class FakeTorchBackend:
    name, device = "torch", "cuda"

    def __init__(self, torch):
        self.torch = torch

    def copy(self, array):
        return array.copy()

    def assign(self, out, value):
        out[...] = value


def test_timed_result_has_every_sample_the_stop_reason_and_the_backend():
    clock = FakeClock()
    torch = FakeTorch(clock)
    calls = []

    def reference(y):
        calls.append(1)
        clock.now += 10e-3  # 10 ms per call on the fake GPU clock
    timing = runner.time_reference(FakeTorchBackend(torch), reference, {"y": np.zeros(2)}, [],
                                   settings(l2_bytes=1 << 20, warmup_calls=2))
    assert timing["timed"] is True and timing["interleaved"] is False
    assert (timing["backend"], timing["device"], timing["mode"]) == ("torch", "cuda", "cold")
    assert timing["l2_flush_bytes"] == 1 << 20 and timing["stop_reason"] == "median_precise"
    assert timing["samples_seconds"] == pytest.approx([10e-3] * 10)  # the minimum count
    assert len(timing["host_seconds"]) == 10 and timing["first_call_seconds"] >= 0
    assert len(calls) == 2 + 10  # the warm-up calls are not samples
    json.dumps(timing)  # what the runner prints must be JSON
