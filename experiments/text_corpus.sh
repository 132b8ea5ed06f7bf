#!/usr/bin/env bash
# experiments/text_corpus.sh: writes a text corpus of the text experiments, from a Debian package,
# with nothing downloaded from outside the package registry.
#
#   experiments/text_corpus.sh [CORPUS]          make data/CORPUS.txt (nothing to do when it is
#                                                already right); CORPUS is kjv (the default) or fortunes
#   experiments/text_corpus.sh [CORPUS] --check  only check an existing data/CORPUS.txt (exit 1 if wrong)
#
# kjv, the corpus of the text pair (configs/text_*.ini, ./train.sh text): the King James Bible,
# public domain, from Debian's bible-kjv package. `bible -f Gen1:1-Rev22:21` prints every verse,
# one per line, as "Ge1:1 In the beginning ..." (31,102 lines, 4,404,412 bytes with bible-kjv
# 4.38). The verse label and the space after it are stripped, so the corpus is the English text
# alone, one verse per line (4,137,850 bytes, ASCII): a byte-level model should not spend its
# capacity, nor earn easy bits, on counting chapter and verse numbers.
#
# fortunes, the second corpus (experiments/text_second_corpus.sh): Debian's fortunes package
# (1:1.99.1-7.3), every fortune file of /usr/share/games/fortunes (FORTUNE_DIR) except ascii-art
# (pictures, not text) and the .dat indexes, in byte order of their names, with the "%" lines
# between fortunes dropped: quips, quotations, definitions and jokes in modern English
# (2,540,385 bytes; 10 lines hold non-ASCII bytes). Unlike the Bible it is many short unrelated
# pieces, and its validation tail (the last 10 %) is its last files (work, wisdom, zippy, ...).
#
# The result must have the SHA-256 below; it is written to a temporary file beside data/CORPUS.txt
# and renamed, so the file is whole or absent, never torn, and an existing file that is not the
# corpus (a user's) is never overwritten. The corpora are produced, not committed (.gitignore).
#
# Needs the corpus's package: as root it is installed (apt-get install); otherwise the script
# prints the command and exits 1.
set -euo pipefail
cd "$(dirname "$(readlink -f "$0")")/.."
corpus=kjv
case "${1:-}" in kjv | fortunes) corpus=$1; shift ;; esac
case $corpus in
kjv)
    SHA256=b5c4940bcfeee072c0935b5200d0f9d88a00a0199cb0961d16133458fcdfae5d
    package=bible-kjv measured=4.38 what="the King James Bible"
    have() { command -v bible >/dev/null 2>&1; }
    # bible pages through less on a terminal; its output here goes to a pipe
    text() { bible -f Gen1:1-Rev22:21 </dev/null | LC_ALL=C sed -E 's/^[1-3]?[A-Z][A-Za-z]*[0-9]+:[0-9]+ //'; }
    version() { dpkg-query -W -f='${Version}' bible-kjv-text 2>/dev/null; }
    ;;
fortunes)
    SHA256=e9e7503ba89755ecaa9563c686ffe55953ec8e62294e672a9207d75e7d53d1d4
    package=fortunes measured=1:1.99.1-7.3 what="the fortune files"
    dir=${FORTUNE_DIR:-/usr/share/games/fortunes}
    have() { [ -f "$dir/fortunes" ]; }
    text() {
        find "$dir" -maxdepth 1 -type f ! -name '*.dat' ! -name ascii-art -printf '%f\n' |
            LC_ALL=C sort | while IFS= read -r f; do cat -- "$dir/$f"; done | LC_ALL=C grep -v '^%$'
    }
    version() { dpkg-query -W -f='${Version}' fortunes 2>/dev/null; }
    ;;
esac
out=data/$corpus.txt

sha_of() { sha256sum "$1" | cut -d' ' -f1; }

if [ "${1:-}" = --check ]; then
    [ -f "$out" ] && [ "$(sha_of "$out")" = "$SHA256" ] && { echo "text_corpus: $out is right"; exit 0; }
    echo "text_corpus: $out is missing or not the corpus (SHA-256 $SHA256 expected)" >&2
    exit 1
elif [ $# -gt 0 ]; then
    echo "usage: experiments/text_corpus.sh [kjv|fortunes] [--check]" >&2
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

if ! have; then
    if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
        echo "text_corpus: installing $what (apt-get install $package)"
        tools/apt_install.sh "$package" >/dev/null || exit 1
    else
        echo "text_corpus: the corpus comes from Debian's $package package. Install it with:" >&2
        echo "    sudo apt-get install $package" >&2
        exit 1
    fi
fi

mkdir -p data
tmp=$(mktemp "$out.XXXXXX")
trap 'rm -f "$tmp"' EXIT
text >"$tmp"
got=$(sha_of "$tmp")
if [ "$got" != "$SHA256" ]; then
    echo "text_corpus: the text has SHA-256 $got, not $SHA256 (another version of $package?" \
        "$(version || echo unknown) here, $measured measured);" \
        "$out not written" >&2
    exit 1
fi
chmod 644 "$tmp"
mv -f -- "$tmp" "$out"
trap - EXIT
echo "text_corpus: wrote $out ($(wc -c <"$out") bytes, SHA-256 checked)"
