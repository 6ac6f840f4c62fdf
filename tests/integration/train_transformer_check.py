#!/usr/bin/env python3
"""train_transformer, with a small model and few steps, learns the text: its validation loss
ends far below the uniform guess ln(vocabulary); it generates the number of characters asked
for, all of them characters of the text; the same seed gives the same output, another seed
other text; and bad options fail with a clear message and a non-zero status.

usage: train_transformer_check.py EXECUTABLE TEXT true|false (whether the build has CUDA)
"""
import math
import re
import subprocess
import sys

EXE, TEXT_PATH, HAVE_CUDA = sys.argv[1], sys.argv[2], sys.argv[3] == "true"
PROGRAM = "train_transformer"
# A tiny model, a few seconds a run on two cores. Its final validation loss lands at 2.30-2.37
# over seeds 0-11: ln(58) = 4.06 is the uniform guess, the characters' frequencies alone
# (unigram) give 3.24 on the held-out text and the frequencies of pairs (bigram) 2.39.
SMALL = ["--layers", "1", "--width", "32", "--context", "32", "--batch-size", "16", "--steps", "200", "--lr", "1e-2"]
MAX_FINAL_LOSS = 2.8
GENERATE = 120
PROMPT = "MENENIUS:\n"

failures = []


def check(condition, message):
    if not condition:
        failures.append(message)
        print("FAIL: " + message)
    return condition


def run(args):
    return subprocess.run([EXE, *args], capture_output=True, text=True, timeout=120)


def final_validation_loss(stdout):
    match = re.search(r"^final: train loss [0-9.]+, validation loss ([0-9.]+) after", stdout, re.MULTILINE)
    return float(match.group(1)) if match else None


def generated_text(stdout):
    """What follows the prompt after the 'generated (...)' line, without the last newline."""
    header = re.search(r"^generated \(.*\):\n", stdout, re.MULTILINE)
    if not header:
        return None
    rest = stdout[header.end():]
    if not rest.startswith(PROMPT) or not rest.endswith("\n"):
        return None
    return rest[len(PROMPT):-1]


def without_timings(stdout):
    return re.sub(r" *[0-9.]+ tokens/s|in [0-9.]+ s", "<time>", stdout)


with open(TEXT_PATH, encoding="utf-8") as file:
    characters = set(file.read())
uniform = math.log(len(characters))

# Training learns: a loss far below the uniform guess, and a sample of the requested length.
args = [*SMALL, "--seed", "3", "--generate", str(GENERATE), "--prompt", PROMPT]
first = run(args)
print(first.stdout, first.stderr, sep="")
if check(first.returncode == 0, f"exit status {first.returncode}"):
    initial = re.search(r"^step +0/\d+ +validation loss ([0-9.]+)", first.stdout, re.MULTILINE)
    check(initial and abs(float(initial.group(1)) - uniform) < 0.3,
          f"the untrained model's validation loss is not about ln({len(characters)}) = {uniform:.4f}")
    loss = final_validation_loss(first.stdout)
    check(loss is not None and loss < MAX_FINAL_LOSS,
          f"final validation loss {loss} is not below {MAX_FINAL_LOSS} (uniform: {uniform:.4f})")
    text = generated_text(first.stdout)
    check(text is not None and len(text) == GENERATE,
          f"expected the prompt and {GENERATE} generated characters, got {None if text is None else len(text)}")
    check(text is not None and set(text) <= characters,
          f"generated characters that are not in the text: {set(text or '') - characters}")

# The same seed gives the same run (losses and text); another seed, other text. Shorter runs.
short = [*SMALL, "--steps", "40", "--generate", "100", "--prompt", PROMPT]
one, again, two = run([*short, "--seed", "1"]), run([*short, "--seed", "1"]), run([*short, "--seed", "2"])
check(one.returncode == 0 and without_timings(again.stdout) == without_timings(one.stdout),
      "the same seed gave another output")
check(generated_text(one.stdout) != generated_text(two.stdout), "seeds 1 and 2 generated the same text")

# Bad options: status 2, "train_transformer: <problem>" and the usage line.
for bad, message in [
    (["--bogus", "1"], "unknown option --bogus"),
    (["--steps"], "missing a value after --steps"),
    (["--steps", "0"], "--steps expects a positive integer, got '0'"),
    (["--batch-size", "many"], "--batch-size expects a positive integer, got 'many'"),
    (["--temperature", "-1"], "--temperature expects a positive number, got '-1'"),
    (["--device", "tpu"], "--device expects cpu or cuda, got 'tpu'"),
    (["--text", "/nonexistent/text.txt"], "cannot read the text '/nonexistent/text.txt'"),
    (["--context", "100000"], "--context 100000 needs at least"),
    (["--width", "30", "--heads", "4"], "--width 30 is not a multiple of --heads 4"),
    (["--prompt", "~"], "--prompt has '~', which the text has not"),
    (["--threads", "-2"], "--threads expects a positive integer, got '-2'"),
]:
    result = run(bad)
    first_line, _, rest = result.stderr.partition("\n")
    check(result.returncode == 2 and first_line.startswith(f"{PROGRAM}: ") and message in first_line and
          rest.startswith(f"usage: {PROGRAM} "),
          f"{bad}: expected status 2 and '{message}', got status {result.returncode}: {result.stderr!r}")

# --device cuda: without a GPU, the runtime's "CUDA is not available" on one line, status 1.
# With one, the run may stop at the first operator that has no CUDA kernel yet (docs/cuda.md),
# also on one clean line.
result = run(["--device", "cuda", *SMALL, "--steps", "1", "--generate", "1"])
if not HAVE_CUDA or "CUDA is not available" in result.stderr:
    check(result.returncode == 1 and re.fullmatch(f"{PROGRAM}: CUDA is not available: [^\n]*\n", result.stderr),
          f"--device cuda: expected status 1 and one line 'CUDA is not available', got status "
          f"{result.returncode}: {result.stderr!r}")
elif result.returncode != 0:
    check(result.returncode == 1 and re.fullmatch(f"{PROGRAM}: [^\n]*\n", result.stderr),
          f"--device cuda: expected status 1 and one line, got status {result.returncode}: {result.stderr!r}")

if failures:
    sys.exit(1)
print(f"PASS: final validation loss {loss:.4f} < {MAX_FINAL_LOSS} (uniform {uniform:.4f}), "
      f"{GENERATE} characters generated, reproducible, clear errors")
