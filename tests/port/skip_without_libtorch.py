#!/usr/bin/env python3
"""Stands in for a port program's comparison with LibTorch where LibTorch is not installed:
a skip (exit status 77) that says why and how to get it."""
import sys

print(f"SKIP {sys.argv[1]}: LibTorch is not installed (Debian: apt-get install libtorch-dev, then reconfigure); "
      "the program was built and checked against tensorgen alone")
sys.exit(77)
