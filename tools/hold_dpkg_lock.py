#!/usr/bin/env python3
"""tools/hold_dpkg_lock.py SECONDS: holds dpkg's two locks (/var/lib/dpkg/lock-frontend and
/var/lib/dpkg/lock, fcntl locks, as apt and dpkg take them) for SECONDS, as unattended upgrades
would, to check by hand that tools/apt_install.sh waits instead of failing (as root):
    tools/hold_dpkg_lock.py 15 & sleep 1; tools/apt_install.sh check; echo $?
prints apt_install's waiting line, then exits 0 once the locks are released. Not run by make test:
it needs root and an apt that reaches its registry."""
import fcntl
import sys
import time

held = [open(p, "w") for p in ("/var/lib/dpkg/lock-frontend", "/var/lib/dpkg/lock")]
for f in held:
    fcntl.lockf(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
print(f"hold_dpkg_lock: holding dpkg's locks for {sys.argv[1]} s", flush=True)
time.sleep(float(sys.argv[1]))
