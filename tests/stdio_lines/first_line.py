"""tests/stdio_lines — first_line.c in Python: a rank that prints one line
with print() (no flush), then waits until the test has seen it (the file
named by its last argument appears) before it prints a second and exits 0;
after 20 s unseen it says so on stderr and exits 1. It imports ncore and
asks it nothing but its version: what the import does is under test."""

import os
import sys
import time

import ncore

print(f"first line, ncore {ncore.get_library_info().version}")
deadline = time.monotonic() + 20
while not os.path.exists(sys.argv[-1]):
    if time.monotonic() > deadline:
        print("first_line.py: nobody saw the first line within 20 s", file=sys.stderr)
        sys.exit(1)
    time.sleep(0.02)
print("second line")
