#!/bin/sh
# SPDX-License-Identifier: MIT
# Run the libFuzzer target for AMX_FUZZ_SECONDS (default 40; a longer run:
# AMX_FUZZ_SECONDS=3600 sh run.sh <fuzz_api> <workdir>).  New inputs go to
# <workdir>, seeds come from the committed corpus next to this script.
# Exit status: 0 no finding, else libFuzzer's (the crashing input is
# written to <workdir>/.. as crash-*).
set -eu
fuzzer=$1 work=$2
seeds=$(cd "$(dirname "$0")" && pwd)/corpus
mkdir -p "$work"
cd "$work/.."
exec "$fuzzer" -max_total_time="${AMX_FUZZ_SECONDS:-40}" -timeout=10 \
	-rss_limit_mb=4096 -max_len=4096 -print_final_stats=1 "$work" "$seeds"
