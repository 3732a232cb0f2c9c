"""libkopt_worker.so loaded by python3 as kopt_triton_host.py loads it (ctypes), without a GPU:
kopt_worker_main refuses wrong arguments, and runs a job as `kopt worker` does: the job file is
deleted, the result carries the nonce, an unknown job kind is one line. Usage:
check_worker_library.py build/cli/libkopt_worker.so (ctest python.worker_library)."""

import ctypes
import json
import os
import subprocess
import sys
import tempfile

CALL = """
import ctypes, sys
worker = ctypes.CDLL(sys.argv[1])
argv = [a.encode() for a in sys.argv[2:]]
sys.exit(worker.kopt_worker_main(len(argv), (ctypes.c_char_p * len(argv))(*argv)))
"""


def call(library, *arguments):
    return subprocess.run([sys.executable, "-c", CALL, library, *arguments], capture_output=True, text=True,
                          timeout=60)


def main(library):
    wrong = call(library, "kopt", "check")
    assert wrong.returncode == 2 and "expects: worker [--await-device N] JOB.json RESULT.json" in wrong.stderr, wrong
    with tempfile.TemporaryDirectory() as folder:
        job, result = os.path.join(folder, "job.json"), os.path.join(folder, "result.json")
        with open(job, "w", encoding="utf-8") as out:
            json.dump({"kind": "nonsense", "nonce": "n0nce"}, out)
        done = call(library, "kopt", "worker", job, result)
        assert done.returncode == 0, done
        assert not os.path.exists(job), "the job file must be gone"
        written = json.load(open(result, encoding="utf-8"))
        assert written["nonce"] == "n0nce", written
        assert "unknown worker job kind" in json.dumps(written), written
    print("libkopt_worker.so: kopt_worker_main behaves as kopt worker")


if __name__ == "__main__":
    main(sys.argv[1])
