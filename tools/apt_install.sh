#!/bin/sh
# apt_install.sh PKG...: apt-get update, then install Debian packages, as root (callers run it
# with sudo otherwise). Every place that installs (make test's check-deps, train.sh, .ci/, tests/,
# experiments/) comes here, so that none fails at once when another apt or dpkg holds a lock
# (unattended upgrades do, for minutes): it waits, saying so at once and then every 10 s, up to
# APT_LOCK_TIMEOUT seconds (default 600), then gives up with apt's own message.
#   Each apt-get is tried without waiting for a lock (DPkg::Lock::Timeout=0) and tried again
#   every 5 s while its only complaint is a lock: apt's own wait is silent under -qq, and
#   apt 2.6 (Debian 12) does not apply DPkg::Lock::Timeout to the package lists' lock
#   (/var/lib/apt/lists/lock, held while unattended upgrades update) at all.
# Output: apt's errors and warnings and the lines while it waits, on stderr; apt's stdout (under
# -qq next to nothing) is not shown.
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

# While a lock holds, a line every 10 s (from a background loop: a locked try of apt-get takes
# seconds of its own on a busy machine); its sleep holds none of our output open once it stops.
ticker=""
stop_ticker() {
    [ -n "$ticker" ] && kill "$ticker" 2>/dev/null
    ticker=""
}
trap stop_ticker EXIT

# Runs apt-get with the arguments after $1 until it succeeds, or fails for another reason than a
# lock, or a lock has held for $limit s; $1 names the lock in the lines it prints while waiting.
while_locked() {
    lock=$1
    shift
    start=$(date +%s)
    waited=0
    while :; do
        err=$(apt-get -o DPkg::Lock::Timeout=0 "$@" 2>&1 >/dev/null) && break
        waited=$(($(date +%s) - start))
        if ! is_lock_error "$err" || [ "$waited" -ge "$limit" ]; then
            had=$ticker
            stop_ticker
            printf '%s\n' "$err" >&2
            [ -n "$had" ] && echo "apt_install: still locked after $waited s; gave up" >&2
            exit 1
        fi
        if [ -z "$ticker" ]; then
            echo "apt_install: another apt or dpkg holds $lock; waiting for it (up to $limit s)" >&2
            while :; do
                sleep 10 </dev/null >/dev/null 2>&1
                echo "apt_install: still waiting for $lock ($(($(date +%s) - start)) s)" >&2
            done &
            ticker=$!
        fi
        sleep 5
    done
    if [ -n "$ticker" ]; then
        stop_ticker
        echo "apt_install: $lock is free after $(($(date +%s) - start)) s" >&2
    fi
    [ -n "$err" ] && printf '%s\n' "$err" >&2 # apt's warnings (W: ...) on success
    return 0
}

while_locked "the package lists' lock" update -qq
while_locked "the dpkg lock" install -y -qq "$@"
