#!/bin/sh
# apt_install.sh PKG...: apt-get update, then install Debian packages, as root (callers run it
# with sudo otherwise). Every place that installs (make test's check-deps, train.sh, .ci/, tests/,
# experiments/) comes here, so that none fails at once when another apt or dpkg holds a lock
# (unattended upgrades do, for minutes): it waits, saying so, up to APT_LOCK_TIMEOUT seconds
# (default 600), then gives up with apt's own message.
#   install: apt's DPkg::Lock::Timeout makes apt-get wait for the dpkg lock, silently under -qq,
#            so a first try without waiting tells us whether to print that we wait.
#   update:  apt 2.6 (Debian 12) does not apply DPkg::Lock::Timeout to the package lists' lock
#            (/var/lib/apt/lists/lock, held while unattended upgrades update), so update is
#            retried every 5 s while its only complaint is a lock.
# Output: apt's errors and warnings on stderr, a line when it waits; stdout is apt's (-qq).
set -u
if [ $# -eq 0 ]; then
    echo "usage: tools/apt_install.sh PKG..." >&2
    exit 2
fi
limit=${APT_LOCK_TIMEOUT:-600}
export DEBIAN_FRONTEND=noninteractive

is_lock_error() { # apt's words for "another process holds the lock"
    case $1 in *"Could not get lock"* | *"Unable to lock"* | *"Unable to acquire the dpkg"*) return 0 ;; esac
    return 1
}

waited=0
while :; do
    err=$(apt-get -o DPkg::Lock::Timeout="$limit" update -qq 2>&1 >/dev/null) && break
    if ! is_lock_error "$err" || [ "$waited" -ge "$limit" ]; then
        printf '%s\n' "$err" >&2
        [ "$waited" -gt 0 ] && echo "apt_install: still locked after $waited s; gave up" >&2
        exit 1
    fi
    [ "$waited" -eq 0 ] &&
        echo "apt_install: another apt holds the package lists' lock; waiting for it (up to $limit s)" >&2
    sleep 5
    waited=$((waited + 5))
done
[ -n "$err" ] && printf '%s\n' "$err" >&2 # update's warnings (W: ...) on success

# A first try that does not wait: its error says whether a lock is the reason.
err=$(apt-get -o DPkg::Lock::Timeout=0 install -y -qq "$@" 2>&1 >/dev/null) && exit 0
if ! is_lock_error "$err"; then
    printf '%s\n' "$err" >&2
    exit 1
fi
echo "apt_install: another apt or dpkg holds the dpkg lock; waiting for it (up to $limit s)" >&2
exec apt-get -o DPkg::Lock::Timeout="$limit" install -y -qq "$@"
