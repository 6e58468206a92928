#!/bin/sh
# SPDX-License-Identifier: MIT
# The AVX-512 12 x 32 micro-kernels keep their 24 accumulators in zmm
# registers: no function gemm_ukr_avx512_* in the objects given may store
# a zmm register to the stack.  $1 = objdump, then the object files.  One
# compiler pass can undo that (GCC's -ftree-partial-pre at -O3:
# libamx/gemm/sources.cmake), and the kernel is then several times slower
# while every result stays right, so no GEMM test would notice.
set -eu
objdump=$1
shift
[ $# -gt 0 ] || { echo "not ok - no objects given"; exit 1; }
fail=0 nfun=0
for o in "$@"; do
	# "<function> <spills>" per kernel function in the object
	out=$("$objdump" -d --no-show-raw-insn "$o" | awk '
		/^[0-9a-f]+ <.*>:$/ {
			f = $2; gsub(/[<>:]/, "", f)
			if (f ~ /^gemm_ukr_avx512_/) n[f] += 0
			next
		}
		f ~ /^gemm_ukr_avx512_/ &&
		/vmov[a-z0-9]*[ \t]+%zmm[0-9]+,.*\(%rsp\)/ { n[f]++ }
		END { for (f in n) print f, n[f] }')
	if [ -z "$out" ]; then
		echo "not ok - no gemm_ukr_avx512_* function in $o"
		fail=1
		continue
	fi
	while read -r f n; do
		nfun=$((nfun + 1))
		if [ "$n" -ne 0 ]; then
			echo "not ok - $f stores zmm to the stack $n times ($o)"
			fail=1
		fi
	done <<-DONE
	$out
	DONE
done
[ $fail = 0 ] && echo "ok - $nfun micro-kernel functions in $# objects, no zmm spill"
exit $fail
