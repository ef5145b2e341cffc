#!/usr/bin/env python3
# Every bundled example case that carries hand-computed outputs (examples/cases/*/case.json
# "outputs") goes through `gradconf replay`, and each replayed output must equal those values bit
# for bit, as cli/README.md promises. numpy reads the .npy files replay writes (an independent
# reader). Usage: replay_examples.py GRADCONF CASES_DIR WORK_DIR
import json, os, subprocess, sys
import numpy as np

gradconf, cases_dir, work = sys.argv[1:4]
checked = 0
for name in sorted(os.listdir(cases_dir)):
    case_dir = os.path.join(cases_dir, name)
    case_file = os.path.join(case_dir, "case.json")
    if not os.path.isfile(case_file):
        continue
    case = json.load(open(case_file))
    outputs = case.get("outputs")
    if not outputs:
        continue
    # The default threads, then 2 threads split as a user gets them and as the laws split them.
    for tag, options in (("", []), ("_t2", ["--threads", "2"]),
                         ("_t2_fine", ["--threads", "2", "--fine-split"])):
        out = os.path.join(work, name + tag)
        subprocess.run([gradconf, "replay", case_dir, "--out", out] + options, check=True)
        status = json.load(open(os.path.join(out, "status.json")))
        if status.get("status") != 0:
            sys.exit(f"{name}{tag}: replay status {status}")
        for param, spec in outputs.items():
            got = np.load(os.path.join(out, param + ".npy"))
            want = np.array(spec["values"], dtype=spec["dtype"]).reshape(spec["shape"])
            if got.dtype != want.dtype or got.shape != want.shape:
                sys.exit(f"{name}{tag}.{param}: got {got.dtype}{got.shape}, "
                         f"expected {want.dtype}{want.shape}")
            if got.tobytes() != want.tobytes():
                diff = np.flatnonzero(got.ravel() != want.ravel())
                sys.exit(f"{name}{tag}.{param}: differs at flat {diff[:5].tolist()}: "
                         f"got {got.ravel()[diff[:5]].tolist()}, "
                         f"expected {want.ravel()[diff[:5]].tolist()}")
            checked += 1
            print(f"{name}{tag}.{param}: {got.size} values equal bit for bit")
if checked < 9:
    sys.exit(f"only {checked} hand-computed outputs checked under {cases_dir}; expected at least "
             "3, each at 3 thread settings")
