#!/usr/bin/env bash
# experiments/text_corpus.sh: writes data/kjv.txt, the corpus of the text pair (configs/text_*.ini,
# ./train.sh text): the King James Bible, public domain, from Debian's bible-kjv package, with
# nothing downloaded from outside the package registry.
#
#   experiments/text_corpus.sh          make data/kjv.txt (nothing to do when it is already right)
#   experiments/text_corpus.sh --check  only check an existing data/kjv.txt (exit 1 if wrong)
#
# What it is: `bible -f Gen1:1-Rev22:21` prints every verse, one per line, as "Ge1:1 In the
# beginning ..." (31,102 lines, 4,404,412 bytes with bible-kjv 4.38). The verse label and the space
# after it are stripped, so the corpus is the English text alone, one verse per line (4,137,850
# bytes, ASCII): a byte-level model should not spend its capacity, nor earn easy bits, on
# counting chapter and verse numbers. The result must have the SHA-256 below; it is written to a
# temporary file beside data/kjv.txt and renamed, so data/kjv.txt is whole or absent, never torn,
# and an existing file that is not the corpus (a user's) is never overwritten. data/kjv.txt is
# produced, not committed (.gitignore).
#
# Needs the bible-kjv package: as root it is installed (apt-get install bible-kjv); otherwise the
# script prints the command and exits 1.
set -euo pipefail
cd "$(dirname "$(readlink -f "$0")")/.."
SHA256=b5c4940bcfeee072c0935b5200d0f9d88a00a0199cb0961d16133458fcdfae5d
out=data/kjv.txt

sha_of() { sha256sum "$1" | cut -d' ' -f1; }

if [ "${1:-}" = --check ]; then
    [ -f "$out" ] && [ "$(sha_of "$out")" = "$SHA256" ] && { echo "text_corpus: $out is right"; exit 0; }
    echo "text_corpus: $out is missing or not the corpus (SHA-256 $SHA256 expected)" >&2
    exit 1
elif [ $# -gt 0 ]; then
    echo "usage: experiments/text_corpus.sh [--check]" >&2
    exit 2
fi

if [ -L "$out" ]; then
    echo "text_corpus: $out is a symbolic link; remove it first (nothing is written through a link)" >&2
    exit 1
fi
if [ -e "$out" ]; then
    if [ -f "$out" ] && [ "$(sha_of "$out")" = "$SHA256" ]; then
        echo "text_corpus: $out is already there (SHA-256 checked)"
        exit 0
    fi
    echo "text_corpus: $out exists but is not the corpus (its SHA-256 is not $SHA256); move it" \
        "away first, it is not overwritten" >&2
    exit 1
fi

if ! command -v bible >/dev/null 2>&1; then
    if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
        echo "text_corpus: installing the King James Bible (apt-get install bible-kjv)"
        tools/apt_install.sh bible-kjv >/dev/null || exit 1
    else
        echo "text_corpus: the corpus comes from Debian's bible-kjv package. Install it with:" >&2
        echo "    sudo apt-get install bible-kjv" >&2
        exit 1
    fi
fi

mkdir -p data
tmp=$(mktemp "$out.XXXXXX")
trap 'rm -f "$tmp"' EXIT
# bible pages through less on a terminal; its output here goes to a pipe
bible -f Gen1:1-Rev22:21 </dev/null | LC_ALL=C sed -E 's/^[1-3]?[A-Z][A-Za-z]*[0-9]+:[0-9]+ //' >"$tmp"
got=$(sha_of "$tmp")
if [ "$got" != "$SHA256" ]; then
    echo "text_corpus: the text has SHA-256 $got, not $SHA256 (another version of bible-kjv?" \
        "$(dpkg-query -W -f='${Version}' bible-kjv-text 2>/dev/null || echo unknown) here, 4.38 measured);" \
        "$out not written" >&2
    exit 1
fi
chmod 644 "$tmp"
mv -f -- "$tmp" "$out"
trap - EXIT
echo "text_corpus: wrote $out ($(wc -c <"$out") bytes, SHA-256 checked)"
