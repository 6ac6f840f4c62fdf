#!/usr/bin/env python3
"""Stands in for a port program's comparison with LibTorch where it cannot run: a skip (exit
status 77) that says why. With one argument, LibTorch is not installed; with a second, that
is the reason this program's LibTorch build cannot run."""
import sys

if len(sys.argv) > 2:
    print(f"SKIP {sys.argv[1]}: {sys.argv[2]}")
else:
    print(f"SKIP {sys.argv[1]}: LibTorch is not installed (tools/setup-libtorch.sh, then meson configure build "
          "-Dlibtorch_dir=<its last line>; or Debian's libtorch-dev); the program was built and checked against "
          "tensorgen alone")
sys.exit(77)
