#!/usr/bin/env bash
# Builds examples/hello.cpp as a program outside the project would: against the
# uninstalled pkg-config file in the build tree, then runs it.
# Usage: build_outside_project.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1 source=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
flags=$(PKG_CONFIG_PATH="$build/meson-uninstalled" pkg-config --cflags --libs tensorgen)
"${CXX:-c++}" -std=c++20 "$source/examples/hello.cpp" $flags -o "$work/hello"
output=$(LD_LIBRARY_PATH="$build" "$work/hello")
grep -q "fitted w = 3" <<<"$output" || { echo "unexpected output:"; echo "$output"; exit 1; }
echo "built and ran a program against tensorgen-uninstalled.pc"
