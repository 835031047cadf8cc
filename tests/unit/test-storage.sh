#!/bin/sh
# test-storage.sh - runs the program tests/unit/test-storage (built by
# `make check` with the other unit tests) as a script of the suite.  make -j
# starts a script's log as soon as a slot is free but a program's only after
# every script has started (it defers a target whose prerequisites it is
# still checking), and this one takes ~50 s (it flips every byte of a
# generation): as a program it ran alone at the end of each pass.
exec "${builddir:-.}/tests/unit/test-storage" "$@"
