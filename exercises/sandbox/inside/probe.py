"""Runs inside a sandbox to prove one can start: the runtime loads and the root cannot be written."""
try:
    open("/sandbox-write-check", "w")
except OSError:
    print("sandbox ok")
else:
    print("the root is writable")
