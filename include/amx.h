/* SPDX-License-Identifier: MIT */
/*
 * libamx - Intel AMX (Advanced Matrix Extensions) for Linux applications.
 *
 * One public header.  Every function that can fail returns 0 (or a
 * non-negative count, where documented) on success and a negative errno
 * value on failure; none of them changes the caller's errno.
 * amx_strerror() turns such a value into a sentence: meaning, cause, fix.
 *
 * Cheap tile helpers (load, store, zero, dot products) are macros over
 * inline assembly: they need no -mamx-* compiler flags and no target
 * attributes, and take the tile register number as a literal 0..7.
 */
#ifndef AMX_H
#define AMX_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define AMX_VERSION_MAJOR 1
#define AMX_VERSION_MINOR 1
#define AMX_VERSION_PATCH 0
/* MAJOR * 10000 + MINOR * 100 + PATCH, as amx_version() returns it. */
#define AMX_VERSION \
	(AMX_VERSION_MAJOR * 10000 + AMX_VERSION_MINOR * 100 + AMX_VERSION_PATCH)

#if defined(__GNUC__)
#define AMX_API __attribute__((visibility("default")))
#else
#define AMX_API
#endif

/* Version of the library actually loaded (AMX_VERSION of its build). */
AMX_API int amx_version(void);
AMX_API const char *amx_version_string(void);

/*
 * A sentence describing @err, a negative errno value: what the value means
 * (as strerror(3) says it), then, for the values the AMX functions return,
 * which one returns it, the likely cause and the fix.  A positive value is
 * described as success.  Never NULL.
 */
AMX_API const char *amx_strerror(int err);

/* --------------------------------------------------------------------
 * Detection
 * ------------------------------------------------------------------ */

/* Bits of struct amx_info.cpu: what CPUID reports. */
#define AMX_CPU_AMX_TILE	(1u << 0)	/* CPUID.(7,0):EDX[24] */
#define AMX_CPU_AMX_INT8	(1u << 1)	/* CPUID.(7,0):EDX[25] */
#define AMX_CPU_AMX_BF16	(1u << 2)	/* CPUID.(7,0):EDX[22] */
#define AMX_CPU_AMX_FP16	(1u << 3)	/* CPUID.(7,1):EAX[21] */
#define AMX_CPU_AMX_COMPLEX	(1u << 4)	/* CPUID.(7,1):EDX[8] */
#define AMX_CPU_OSXSAVE		(1u << 5)	/* CPUID.1:ECX[27] */
#define AMX_CPU_XFD		(1u << 6)	/* CPUID.(0xD,1):EAX[4] */
#define AMX_CPU_AVX512F		(1u << 7)	/* CPUID.(7,0):EBX[16] */
#define AMX_CPU_AVX512_BF16	(1u << 8)	/* CPUID.(7,1):EAX[5] */
#define AMX_CPU_AVX512_VNNI	(1u << 9)	/* CPUID.(7,0):ECX[11] */

/* XSAVE state components of AMX. */
#define AMX_XFEATURE_XTILECFG	17
#define AMX_XFEATURE_XTILEDATA	18
#define AMX_XFEATURE_MASK_TILE \
	((1ull << AMX_XFEATURE_XTILECFG) | (1ull << AMX_XFEATURE_XTILEDATA))

/* Palette 1 geometry from CPUID leaf 0x1D, sub-leaf 1. */
struct amx_palette {
	uint16_t total_bytes;	/* all tile registers together */
	uint16_t bytes_per_tile;
	uint16_t bytes_per_row;	/* maximum colsb */
	uint16_t max_names;	/* number of tile registers */
	uint16_t max_rows;
	uint16_t reserved[3];
};

/*
 * What the CPU, the OS and the kernel say about AMX.  Filled by
 * amx_get_info().  Fields the machine cannot report are 0; *_err fields
 * hold the -errno of a failed query (0 when the query worked).
 */
struct amx_info {
	uint32_t cpu;			/* AMX_CPU_* bits */
	uint32_t max_palette;		/* CPUID.(0x1D,0):EAX, 0 = no palettes */
	struct amx_palette palette1;	/* valid when max_palette >= 1 */
	uint16_t tmul_max_k;		/* CPUID.(0x1E,0):EBX[7:0], rows */
	uint16_t tmul_max_n;		/* CPUID.(0x1E,0):EBX[23:8], bytes */
	uint64_t xcr0;			/* XGETBV(0); 0 without OSXSAVE */
	uint32_t xsave_size_enabled;	/* CPUID.(0xD,0):EBX, XCR0 features */
	uint32_t xsave_size_max;	/* CPUID.(0xD,0):ECX, all features */
	uint32_t xtilecfg_size, xtilecfg_offset;	/* CPUID.(0xD,17) */
	uint32_t xtiledata_size, xtiledata_offset;	/* CPUID.(0xD,18) */
	uint64_t kernel_supported;	/* ARCH_GET_XCOMP_SUPP mask */
	int kernel_supported_err;
	int kernel_permitted_err;
	uint64_t kernel_permitted;	/* ARCH_GET_XCOMP_PERM mask, read now */
	unsigned long minsigstksz;	/* getauxval(AT_MINSIGSTKSZ), 0 if absent */
	size_t sigaltstack_size;	/* amx_sigaltstack_size() */
	int status;			/* amx_status() at the time of the call */
	/*
	 * 1 when amx_request() was granted through the kernel's
	 * ARCH_REQ_XCOMP_PERM_ALLOC (libamx's kernel series): tile buffers
	 * of the caller and of later threads are allocated up front.
	 */
	uint32_t alloc_sync;
	/*
	 * The environment variable AMX_FORCE_FALLBACK as the GEMM helpers
	 * read it at this moment: AMX_FORCE_NONE, AMX_FORCE_NO_AMX or
	 * AMX_FORCE_C.  force_fallback_ignored is 1 when the variable holds
	 * a value outside the documented set ("", "0", "1", "c"), which the
	 * library then ignores (force_fallback is AMX_FORCE_NONE).
	 */
	uint32_t force_fallback;
	uint32_t force_fallback_ignored;
	/*
	 * AMX_ENV_* bits of the library's environment variables whose value
	 * the library ignores (does not parse, or out of range), as the
	 * environment is at the time of the call.
	 */
	uint32_t env_ignored;
	uint32_t reserved[11];
};

/* Bits of struct amx_info.env_ignored. */
#define AMX_ENV_NUM_THREADS	(1u << 0)	/* AMX_NUM_THREADS */
#define AMX_ENV_GEMM_BLOCKS	(1u << 1)	/* AMX_GEMM_BLOCKS */
#define AMX_ENV_FORCE_FALLBACK	(1u << 2)	/* AMX_FORCE_FALLBACK */
#define AMX_ENV_PIN		(1u << 3)	/* AMX_PIN */
#define AMX_ENV_PLACEMENT	(1u << 4)	/* AMX_PLACEMENT */

/* Values of struct amx_info.force_fallback. */
#define AMX_FORCE_NONE		0	/* best implementation available */
#define AMX_FORCE_NO_AMX	1	/* AMX_FORCE_FALLBACK=1: no AMX tiles */
#define AMX_FORCE_C		2	/* AMX_FORCE_FALLBACK=c: portable C only */

/*
 * Fill @info.  CPUID, XGETBV, AT_MINSIGSTKSZ and ARCH_GET_XCOMP_SUPP are
 * read once per process and cached; ARCH_GET_XCOMP_PERM is read again on
 * every call (one cheap syscall) because permission changes over time.
 * Returns 0, or -EINVAL when @info is NULL.
 */
AMX_API int amx_get_info(struct amx_info *info);

/*
 * Whether this process may execute AMX tile instructions now.
 * Returns 0 when the CPU, the OS and the kernel support AMX and
 * permission for XTILEDATA is granted; otherwise -EOPNOTSUPP (no AMX in
 * CPU, OS or kernel), -EINVAL (kernel without the arch_prctl options),
 * -EACCES (supported, permission not requested yet), or the error of the
 * last failed amx_request().  No syscall once permission is known.
 */
AMX_API int amx_status(void);

/* --------------------------------------------------------------------
 * Permission
 * ------------------------------------------------------------------ */

/*
 * Ask the kernel for permission to use AMX tile data (XTILEDATA) in this
 * process.  Call it at library or program init, before the first tile
 * instruction.  Idempotent and thread-safe; after success it returns 0
 * with no syscall.  Permission is per process: inherited by fork(),
 * cleared by execve().
 *
 * Before asking, the calling thread's alternate signal stack is checked
 * against the signal frame size the kernel will require once AMX is
 * permitted; a too-small one is refused here with -ENOSPC and nothing is
 * changed (amx_sigaltstack_install() fixes it).
 *
 * Where the kernel offers ARCH_REQ_XCOMP_PERM_ALLOC (libamx's kernel
 * series) it is used: the calling thread's enlarged register buffer is
 * allocated now, and that of every thread created later at clone(), so
 * no first tile instruction traps or dies of a failed allocation.
 * Other kernels get ARCH_REQ_XCOMP_PERM (allocation at first use).
 *
 * Returns 0, or -EOPNOTSUPP (CPU or kernel lacks AMX), -EINVAL (kernel
 * older than 5.16, without the arch_prctl options), -ENOSPC (a thread's
 * sigaltstack is too small; the kernel checks every thread), -EPERM
 * (refused by policy, e.g. seccomp), -ENOMEM (permission granted, but the
 * kernel could not allocate this thread's tile buffer now; a retry may
 * succeed), -EIO (the kernel said yes but does not report the permission
 * afterwards).
 */
AMX_API int amx_request(void);

/* --------------------------------------------------------------------
 * Signal stacks
 * ------------------------------------------------------------------ */

/* Stack budget for a signal handler's own frames, on top of the frame. */
#define AMX_SIGSTACK_HANDLER_BUDGET (16u * 1024u)

/*
 * A sigaltstack size the kernel accepts once AMX is permitted: the signal
 * frame size with tile data (AT_MINSIGSTKSZ when the kernel provides it,
 * otherwise computed from CPUID leaf 0xD) plus one byte, at least
 * sysconf(_SC_SIGSTKSZ), plus AMX_SIGSTACK_HANDLER_BUDGET, rounded up to
 * the page size.  Never fails.
 */
AMX_API size_t amx_sigaltstack_size(void);

/*
 * Give the calling thread an alternate signal stack of
 * amx_sigaltstack_size() bytes (mmap'ed, with a guard page below it).
 * An installed stack that is already large enough is kept (returns 1);
 * a too-small or missing one is replaced (returns 0).  Returns -EBUSY
 * when called from a handler running on the current alternate stack,
 * -ENOMEM when the mapping fails, or the sigaltstack() error.
 */
AMX_API int amx_sigaltstack_install(void);

/*
 * Disable the alternate stack installed by amx_sigaltstack_install() in
 * the calling thread and free it.  Returns 0, -ENOENT when the current
 * alternate stack is not the library's, -EBUSY when running on it.
 */
AMX_API int amx_sigaltstack_uninstall(void);

/* --------------------------------------------------------------------
 * Tile configuration
 * ------------------------------------------------------------------ */

#define AMX_TILE_MAX 16	/* slots in the LDTILECFG memory layout */

/* Exactly the 64-byte memory operand of LDTILECFG / STTILECFG. */
struct amx_tilecfg {
	uint8_t palette_id;
	uint8_t start_row;
	uint8_t reserved[14];
	uint16_t colsb[AMX_TILE_MAX];	/* bytes per row of each tile */
	uint8_t rows[AMX_TILE_MAX];
} __attribute__((aligned(64)));

/*
 * Clear @cfg and set its palette.  Only palette 1 exists; it is checked
 * against CPUID leaf 0x1D where the CPU has AMX (and against the
 * architectural palette 1 elsewhere, so configurations can be built on
 * any machine).  Returns 0 or -EINVAL.
 */
AMX_API int amx_tilecfg_init(struct amx_tilecfg *cfg, unsigned int palette);

/*
 * Shape tile register @tile: @rows rows of @colsb bytes.  Both zero
 * leaves the tile unconfigured.  Checked against the palette (tile <
 * max_names, rows <= max_rows, colsb <= bytes_per_row, both zero or both
 * non-zero).  Returns 0 or -EINVAL; @cfg is unchanged on error.
 */
AMX_API int amx_tilecfg_set(struct amx_tilecfg *cfg, unsigned int tile,
			    unsigned int rows, unsigned int colsb);

/*
 * Load @cfg into the calling thread's tile configuration.  When the live
 * configuration (STTILECFG) already equals @cfg, LDTILECFG is skipped
 * (it would zero all tile data) and 1 is returned; otherwise 0.
 * Returns the amx_status() error when tiles cannot be used, -EINVAL for
 * a configuration LDTILECFG would refuse.
 */
AMX_API int amx_tile_configure(const struct amx_tilecfg *cfg);

/*
 * Store the live tile configuration of the calling thread into @cfg
 * (all zero when tiles are not configured).  Returns 0, -EINVAL or the
 * amx_status() error.
 */
AMX_API int amx_tile_read_config(struct amx_tilecfg *cfg);

/*
 * TILERELEASE: return the calling thread's tiles to their initial state
 * so the kernel and the core do not carry them.  No-op without AMX.
 */
AMX_API void amx_tile_release(void);

/*
 * Tile data helpers.  t, a, b and c are literal tile numbers 0..7; base
 * is a pointer, stride a byte count between rows.  The tiles must be
 * configured (amx_tile_configure()) and AMX permitted (amx_request()).
 */
#define AMX__S(x) #x
#define AMX__TMM(t) "%%tmm" AMX__S(t)

/* TILELOADD: tile t <- rows of memory at base, stride bytes apart. */
#define amx_tile_load(t, base, stride)					\
	__asm__ volatile("tileloadd (%0,%1,1), " AMX__TMM(t)		\
			 : : "r"(base), "r"((long)(stride)) : "memory")
/* TILELOADDT1: the same with a hint that the data will not be reused. */
#define amx_tile_load_t1(t, base, stride)				\
	__asm__ volatile("tileloaddt1 (%0,%1,1), " AMX__TMM(t)		\
			 : : "r"(base), "r"((long)(stride)) : "memory")
/* TILESTORED: rows of tile t -> memory at base, stride bytes apart. */
#define amx_tile_store(t, base, stride)					\
	__asm__ volatile("tilestored " AMX__TMM(t) ", (%0,%1,1)"	\
			 : : "r"(base), "r"((long)(stride)) : "memory")
/* TILEZERO. */
#define amx_tile_zero(t) __asm__ volatile("tilezero " AMX__TMM(t) ::)

#define AMX__TDP(insn, c, a, b)						\
	__asm__ volatile(insn " " AMX__TMM(b) ", " AMX__TMM(a) ", "	\
			 AMX__TMM(c) ::)
/* c (fp32) += a (bf16 pairs) . b (bf16 pairs, VNNI) - AMX-BF16 */
#define amx_tdpbf16ps(c, a, b)	AMX__TDP("tdpbf16ps", c, a, b)
/*
 * The Granite Rapids instructions are emitted as bytes: binutils 2.40
 * knows TDPFP16PS but not the complex pair, clang 14's assembler none of
 * them.  VEX.128.<pp>.0F38.W0 <op>, ModRM 11:c:a, VEX.vvvv = ~b.
 */
#define AMX__VEX38(pp, op, c, a, b)					\
	__asm__ volatile(".byte 0xc4, 0xe2, (15 - " AMX__S(b) ") << 3 | "	\
			 #pp ", " #op ", 0xc0 | " AMX__S(c) " << 3 | "	\
			 AMX__S(a) ::)
/* c (fp32) += a (fp16 pairs) . b (fp16 pairs, VNNI) - AMX-FP16 (F2 5C) */
#define amx_tdpfp16ps(c, a, b)	AMX__VEX38(3, 0x5c, c, a, b)
/*
 * AMX-COMPLEX: a and b hold complex numbers, one fp16 pair (real, imag)
 * a dword; c (fp32) += the imaginary (im: 66 6C) or real (rl: NP 6C)
 * part of a . b.
 */
#define amx_tcmmimfp16ps(c, a, b)	AMX__VEX38(1, 0x6c, c, a, b)
#define amx_tcmmrlfp16ps(c, a, b)	AMX__VEX38(0, 0x6c, c, a, b)
/* c (s32) += a . b (quads of 8-bit ints, VNNI) - AMX-INT8, by signs: */
#define amx_tdpbssd(c, a, b)	AMX__TDP("tdpbssd", c, a, b) /* s8 . s8 */
#define amx_tdpbsud(c, a, b)	AMX__TDP("tdpbsud", c, a, b) /* s8 . u8 */
#define amx_tdpbusd(c, a, b)	AMX__TDP("tdpbusd", c, a, b) /* u8 . s8 */
#define amx_tdpbuud(c, a, b)	AMX__TDP("tdpbuud", c, a, b) /* u8 . u8 */

/* --------------------------------------------------------------------
 * Data helpers
 * ------------------------------------------------------------------ */

typedef uint16_t amx_bf16;

/* fp32 -> bf16, round to nearest even; NaN stays NaN (quiet, same sign). */
AMX_API amx_bf16 amx_fp32_to_bf16(float f);
/* bf16 -> fp32, exact. */
AMX_API float amx_bf16_to_fp32(amx_bf16 h);
/* Array forms.  Return 0, or -EINVAL for NULL with @n != 0. */
AMX_API int amx_fp32_to_bf16_array(amx_bf16 *dst, const float *src, size_t n);
AMX_API int amx_bf16_to_fp32_array(float *dst, const amx_bf16 *src, size_t n);

/*
 * IEEE 754 binary16 (half precision): 1 sign, 5 exponent, 10 fraction
 * bits, as the AMX-FP16 and AMX-COMPLEX instructions read it.
 */
typedef uint16_t amx_fp16;

/*
 * fp32 -> fp16, round to nearest even (overflow gives infinity, results
 * below the fp16 range round to fp16 denormals or zero); a NaN stays a NaN
 * of the same sign, quieted, with the top 9 bits of its payload.
 */
AMX_API amx_fp16 amx_fp32_to_fp16(float f);
/* fp16 -> fp32, exact (denormals included); a NaN is quieted, payload kept. */
AMX_API float amx_fp16_to_fp32(amx_fp16 h);
/* Array forms (F16C where the CPU has it).  0, or -EINVAL for NULL, n != 0. */
AMX_API int amx_fp32_to_fp16_array(amx_fp16 *dst, const float *src,
				   size_t n);
AMX_API int amx_fp16_to_fp32_array(float *dst, const amx_fp16 *src,
				   size_t n);

/*
 * VNNI re-layout of a row-major B (@k rows x @n columns, @ldb elements
 * between rows) into tile blocks ready for TILELOADD as the B operand:
 * for each block of 16 columns (outer), for each block of 32 (bf16) or
 * 64 (int8) rows (inner), one 1024-byte tile of 16 rows x 64 bytes where
 * row r holds, for column j, the 2 (bf16) or 4 (int8) consecutive
 * k-elements 2r.. or 4r.. of that block.  Ragged edges are zero-padded.
 * The size in bytes is returned by amx_pack_b_size_*(); returns 0 for an
 * empty matrix.  Pack returns 0, -EINVAL (NULL with a non-zero size,
 * ldb < n) or -EOVERFLOW (size not representable, or a span that cannot
 * exist in the address space: see amx_pack_b_bf16(3)); on error nothing
 * is written.  Unpack is the inverse (tests, debugging).
 */
AMX_API size_t amx_pack_b_size_bf16(size_t k, size_t n);
AMX_API size_t amx_pack_b_size_i8(size_t k, size_t n);
AMX_API int amx_pack_b_bf16(void *dst, const amx_bf16 *b, size_t k, size_t n,
			    size_t ldb);
AMX_API int amx_pack_b_i8(void *dst, const int8_t *b, size_t k, size_t n,
			  size_t ldb);
AMX_API int amx_unpack_b_bf16(amx_bf16 *b, const void *src, size_t k,
			      size_t n, size_t ldb);
AMX_API int amx_unpack_b_i8(int8_t *b, const void *src, size_t k, size_t n,
			    size_t ldb);

/* --------------------------------------------------------------------
 * GEMM
 *
 * bf16 and int8 matrix multiply on AMX, with an AVX-512 BF16/VNNI and a
 * portable C fallback behind the same calls.  All matrices are row-major.
 * Every function returns 0 or a negative errno value and never modifies
 * errno.  See amx_gemm_bf16(3).
 * ------------------------------------------------------------------ */

/* flags */
#define AMX_GEMM_ACCUMULATE	(1u << 0)	/* C += A*B instead of C = A*B */
/*
 * amx_gemm_bf16_wq() only: quantize each row of A to int8 on its way into
 * the GEMM (one scale per row, as amx_quantize_bf16_s8()) and multiply
 * as amx_gemm_s8_wq() does
 */
#define AMX_GEMM_QUANTIZE_A	(1u << 1)

/* element types of a pre-packed B */
enum amx_gemm_type {
	AMX_GEMM_BF16 = 1,	/* bf16 B, for amx_gemm_bf16_packed() */
	AMX_GEMM_S8 = 2,	/* int8 B, for amx_gemm_{s8s8,u8s8}_packed() */
	AMX_GEMM_F16 = 3,	/* fp16 B, for amx_gemm_f16_packed() */
};

/* which implementation a call made now would use */
enum amx_gemm_backend {
	AMX_GEMM_BACKEND_AMX = 1,	/* AMX tiles */
	AMX_GEMM_BACKEND_AVX512 = 2,	/* AVX-512 BF16 / VNNI / F (fp16) */
	AMX_GEMM_BACKEND_C = 3,		/* portable C */
};

/*
 * C[m x n] (+)= A[m x k] * B[k x n]; bf16 inputs, fp32 accumulation/output.
 * bf16 values are the upper 16 bits of an IEEE fp32 (see amx_fp32_to_bf16()).
 */
AMX_API int amx_gemm_bf16(unsigned int flags, size_t m, size_t n, size_t k,
			  const amx_bf16 *a, size_t lda, const amx_bf16 *b,
			  size_t ldb, float *c, size_t ldc);

/*
 * C[m x n] (+)= A[m x k] * B[k x n]; fp16 inputs, fp32 accumulation and
 * output.  AMX-FP16 tiles where the CPU has them, else AVX-512F or C.
 */
AMX_API int amx_gemm_f16(unsigned int flags, size_t m, size_t n, size_t k,
			 const amx_fp16 *a, size_t lda, const amx_fp16 *b,
			 size_t ldb, float *c, size_t ldc);

/*
 * Complex: C[m x n] (+)= A[m x k] * B[k x n], every element a complex
 * number stored as two consecutive values, real part first: fp16 pairs
 * in A and B, fp32 pairs in C.  lda, ldb and ldc count complex elements.
 */
AMX_API int amx_gemm_cf16(unsigned int flags, size_t m, size_t n, size_t k,
			  const amx_fp16 *a, size_t lda, const amx_fp16 *b,
			  size_t ldb, float *c, size_t ldc);

/* C (+)= A * B with signed 8-bit A and B, int32 C (wrap-around on overflow) */
AMX_API int amx_gemm_s8s8(unsigned int flags, size_t m, size_t n, size_t k,
			  const int8_t *a, size_t lda, const int8_t *b,
			  size_t ldb, int32_t *c, size_t ldc);

/* C (+)= A * B with unsigned 8-bit A, signed 8-bit B, int32 C */
AMX_API int amx_gemm_u8s8(unsigned int flags, size_t m, size_t n, size_t k,
			  const uint8_t *a, size_t lda, const int8_t *b,
			  size_t ldb, int32_t *c, size_t ldc);

/* A B[k x n] re-laid out once for reuse with many A of any row count. */
struct amx_packed_b;

AMX_API int amx_packed_b_create(struct amx_packed_b **pb,
				enum amx_gemm_type type, size_t k, size_t n,
				const void *b, size_t ldb);
AMX_API void amx_packed_b_free(struct amx_packed_b *pb);
/* bytes of the packed matrix one GEMM reads (0 for NULL); replicated
 * placement holds one such copy per node */
AMX_API size_t amx_packed_b_size(const struct amx_packed_b *pb);

AMX_API int amx_gemm_bf16_packed(unsigned int flags, size_t m,
				 const amx_bf16 *a, size_t lda,
				 const struct amx_packed_b *b, float *c,
				 size_t ldc);
AMX_API int amx_gemm_f16_packed(unsigned int flags, size_t m,
				const amx_fp16 *a, size_t lda,
				const struct amx_packed_b *b, float *c,
				size_t ldc);
AMX_API int amx_gemm_s8s8_packed(unsigned int flags, size_t m,
				 const int8_t *a, size_t lda,
				 const struct amx_packed_b *b, int32_t *c,
				 size_t ldc);
AMX_API int amx_gemm_u8s8_packed(unsigned int flags, size_t m,
				 const uint8_t *a, size_t lda,
				 const struct amx_packed_b *b, int32_t *c,
				 size_t ldc);

/* --------------------------------------------------------------------
 * Fused epilogue (see amx_epilogue_create(3) and amx_gemm_bf16_ep(3))
 *
 * What an inference layer does to a GEMM's result, done by the GEMM to
 * each block of C right after its last K step, while the block is still
 * in L1: for element (i, j) of the accumulated product acc,
 *
 *   v = acc - zp[i] * sum_k B[k][j]      u8s8 with zero points: int32
 *   v = (float)v * rs[i] * w[j]          w[j] = scale * col_scale[j]
 *   v = v + bias[j]
 *   v = act(v)
 *   v = v + C[i][j]                      with AMX_GEMM_ACCUMULATE
 *   C[i][j] = v as fp32 or bf16          (round to nearest even)
 *
 * each step in fp32 in this order; rs (per row of A) and zp come with the
 * call, the rest with the epilogue.
 * ------------------------------------------------------------------ */

enum amx_act {
	AMX_ACT_NONE = 0,
	AMX_ACT_RELU = 1,	/* max(v, 0); NaN stays NaN */
	AMX_ACT_GELU_TANH = 2,	/* v / 2 (1 + tanh(sqrt(2/pi) (v + 0.044715 v^3))) */
	AMX_ACT_GELU_ERF = 3,	/* v / 2 (1 + erf(v / sqrt(2))) */
	AMX_ACT_SILU = 4,	/* v / (1 + exp(-v)) */
};

/* element type of C written by an epilogue */
enum amx_out_type {
	AMX_OUT_F32 = 0,
	AMX_OUT_BF16 = 1,
};

struct amx_epilogue_desc {
	size_t n;		/* columns of C: the length of the arrays */
	float scale;		/* per tensor; 0 is taken as 1 */
	const float *col_scale;	/* [n] per column of C, or NULL (all 1) */
	const float *bias;	/* [n] per column of C, or NULL (all 0) */
	uint32_t act;		/* enum amx_act */
	uint32_t out;		/* enum amx_out_type */
	uint32_t reserved[6];	/* 0 */
};

struct amx_epilogue;

/*
 * Check @desc once and keep a copy of it and its arrays in *@ep (the
 * caller's arrays may go after the call).  Returns 0, -EINVAL (NULL ep or
 * desc, n == 0, act or out unknown, a reserved field not 0, a scale not
 * finite or not > 0, a bias not finite) or -ENOMEM; *@ep is left alone on
 * error.
 */
AMX_API int amx_epilogue_create(struct amx_epilogue **ep,
				const struct amx_epilogue_desc *desc);
AMX_API void amx_epilogue_free(struct amx_epilogue *ep);

/*
 * The GEMMs above with the epilogue @ep applied to C, which holds
 * ep's output type (ldc counts its elements).  @row_scale: [m] scales per
 * row of A (finite, > 0), or NULL (all 1); @row_zp: [m] zero points of
 * u8 A rows (u8s8 only, else NULL), or NULL.  n must be ep's n.  Return
 * what the GEMM returns, and -EINVAL for NULL ep, n not ep's, a row scale
 * not finite or not > 0, row_zp on an op other than u8s8, C overlapping
 * row_scale or row_zp; on error C is untouched.
 */
AMX_API int amx_gemm_bf16_ep(unsigned int flags, size_t m, size_t n,
			     size_t k, const amx_bf16 *a, size_t lda,
			     const amx_bf16 *b, size_t ldb, void *c,
			     size_t ldc, const struct amx_epilogue *ep,
			     const float *row_scale, const int32_t *row_zp);
AMX_API int amx_gemm_f16_ep(unsigned int flags, size_t m, size_t n,
			    size_t k, const amx_fp16 *a, size_t lda,
			    const amx_fp16 *b, size_t ldb, void *c,
			    size_t ldc, const struct amx_epilogue *ep,
			    const float *row_scale, const int32_t *row_zp);
AMX_API int amx_gemm_s8s8_ep(unsigned int flags, size_t m, size_t n,
			     size_t k, const int8_t *a, size_t lda,
			     const int8_t *b, size_t ldb, void *c,
			     size_t ldc, const struct amx_epilogue *ep,
			     const float *row_scale, const int32_t *row_zp);
AMX_API int amx_gemm_u8s8_ep(unsigned int flags, size_t m, size_t n,
			     size_t k, const uint8_t *a, size_t lda,
			     const int8_t *b, size_t ldb, void *c,
			     size_t ldc, const struct amx_epilogue *ep,
			     const float *row_scale, const int32_t *row_zp);
AMX_API int amx_gemm_bf16_packed_ep(unsigned int flags, size_t m,
				    const amx_bf16 *a, size_t lda,
				    const struct amx_packed_b *b, void *c,
				    size_t ldc, const struct amx_epilogue *ep,
				    const float *row_scale,
				    const int32_t *row_zp);
AMX_API int amx_gemm_f16_packed_ep(unsigned int flags, size_t m,
				   const amx_fp16 *a, size_t lda,
				   const struct amx_packed_b *b, void *c,
				   size_t ldc, const struct amx_epilogue *ep,
				   const float *row_scale,
				   const int32_t *row_zp);
AMX_API int amx_gemm_s8s8_packed_ep(unsigned int flags, size_t m,
				    const int8_t *a, size_t lda,
				    const struct amx_packed_b *b, void *c,
				    size_t ldc, const struct amx_epilogue *ep,
				    const float *row_scale,
				    const int32_t *row_zp);
AMX_API int amx_gemm_u8s8_packed_ep(unsigned int flags, size_t m,
				    const uint8_t *a, size_t lda,
				    const struct amx_packed_b *b, void *c,
				    size_t ldc, const struct amx_epilogue *ep,
				    const float *row_scale,
				    const int32_t *row_zp);

/*
 * Library thread pool: n workers (including the caller); 0 restores the
 * default (AMX_NUM_THREADS, else one per physical core of the affinity mask).
 */
AMX_API int amx_set_num_threads(unsigned int n);
AMX_API int amx_get_num_threads(void);

/*
 * enum amx_gemm_backend that a GEMM call on @type made now by this process
 * would use (AMX only once amx_request() succeeded), or -EINVAL.
 */
AMX_API int amx_gemm_backend(enum amx_gemm_type type);

/*
 * Cache blocking of the GEMM, per backend and operation (see
 * amx_gemm_get_blocking(3) and amx-tune(1)).  Sizes are in elements.
 */
enum amx_gemm_op {
	AMX_GEMM_OP_BF16 = 1,	/* amx_gemm_bf16*() */
	AMX_GEMM_OP_S8S8 = 2,	/* amx_gemm_s8s8*() */
	AMX_GEMM_OP_U8S8 = 3,	/* amx_gemm_u8s8*() */
	AMX_GEMM_OP_F16 = 4,	/* amx_gemm_f16*(), amx_gemm_cf16() */
};

/*
 * The names the tuning file, AMX_GEMM_BLOCKS and the tools use: "amx",
 * "avx512", "c" for a backend, "bf16", "s8s8", "u8s8", "f16" for an
 * operation; NULL for a value that is none.
 */
AMX_API const char *amx_gemm_backend_name(enum amx_gemm_backend backend);
AMX_API const char *amx_gemm_op_name(enum amx_gemm_op op);

/* where the blocking in force came from */
enum amx_gemm_blocking_source {
	AMX_GEMM_BLOCKING_DEFAULT = 0,	/* built into the library */
	AMX_GEMM_BLOCKING_FILE = 1,	/* the tuning file (amx-tune) */
	AMX_GEMM_BLOCKING_ENV = 2,	/* AMX_GEMM_BLOCKS */
	AMX_GEMM_BLOCKING_API = 3,	/* amx_gemm_set_blocking() */
};

/*
 * How the AMX backend computes blocks of C smaller than its 32 x 32
 * micro-kernel (the M and N edges): copied through a scratch block, or
 * with the tiles configured to the block's shape.  Other backends ignore
 * it (and report COPY).
 */
enum amx_gemm_edge {
	AMX_GEMM_EDGE_COPY = 0,		/* scratch block (the default) */
	AMX_GEMM_EDGE_TILES = 1,	/* partial tile configurations */
};

/*
 * When the AMX backend moves its C tiles to and from memory: all before
 * and after a block's K loop, or each one inside the first and last K
 * step, next to its own dot product, so that the moves overlap the
 * other tiles' work.  Other backends ignore it (and report BLOCK).
 */
enum amx_gemm_cio {
	AMX_GEMM_CIO_BLOCK = 0,		/* around the K loop */
	AMX_GEMM_CIO_INTERLEAVE = 1,	/* inside the first and last K step (the default) */
};

struct amx_gemm_blocking {
	uint32_t kc;		/* K block */
	uint32_t mc;		/* M block (rows of packed A) */
	uint32_t nc;		/* N block (columns of packed B) */
	uint32_t prefetch;	/* micro-kernel prefetch distance, K steps; 0 off */
	uint32_t source;	/* enum amx_gemm_blocking_source (get only) */
	uint32_t edge;		/* enum amx_gemm_edge */
	uint32_t cio;		/* enum amx_gemm_cio */
	/*
	 * AMX only: a call of fewer than @small flop (2 M N K) runs on the
	 * AVX-512 backend where the CPU has it, since the tile setup costs
	 * more than such a product; 0: every call runs on AMX.
	 */
	uint32_t small;
	/*
	 * 0 (get fills in 0, set refuses anything else): room for knobs of
	 * later releases without a new ABI.
	 */
	uint32_t reserved[8];
};

/*
 * The blocking calls on @op would use on @backend now.  Returns 0 or
 * -EINVAL.  The first call (or first GEMM) reads the tuning file and
 * AMX_GEMM_BLOCKS.
 */
AMX_API int amx_gemm_get_blocking(enum amx_gemm_backend backend,
				  enum amx_gemm_op op,
				  struct amx_gemm_blocking *b);
/*
 * Use @b for @op on @backend in this process from the next call on
 * (kc rounded up to 64 bytes, mc to the micro-kernel's rows, nc to 32);
 * NULL goes back to defaults, file and environment.  Returns 0, or
 * -EINVAL (a size 0 or too large: kc, mc > 8192, nc > 65536,
 * prefetch > 64, small > 2^30, edge not an enum amx_gemm_edge, cio not an
 * enum amx_gemm_cio, a reserved field not 0).
 */
AMX_API int amx_gemm_set_blocking(enum amx_gemm_backend backend,
				  enum amx_gemm_op op,
				  const struct amx_gemm_blocking *b);
/*
 * Write the blocking in force (every backend and operation whose values
 * are not the built-in defaults) as a tuning file for this CPU to @path, or with NULL to the user's file
 * ($XDG_CACHE_HOME/libamx/gemm-blocking, else ~/.cache/libamx/...),
 * creating its directory.  Returns 0 or -errno.
 */
AMX_API int amx_gemm_blocking_save(const char *path);
/*
 * The tuning file the library read (or the last one it rejected), NULL
 * when none was found; *status (if not NULL): 0 used, -ENOENT none,
 * -EINVAL malformed, -EPROTO another format version, -ESTALE made on
 * another CPU.
 */
AMX_API const char *amx_gemm_blocking_file(int *status);

/* --------------------------------------------------------------------
 * Activation quantization (see amx_quantize_s8(3))
 *
 * Per-row (per-token) 8-bit quantization of fp32 or bf16 activations for
 * A of amx_gemm_s8s8() and amx_gemm_u8s8(), with one scale (and, u8, one
 * zero point) per row to pass to their _ep forms as row_scale and
 * row_zp: real value ~= scales[i] * (q - zero_points[i]).  s8 is
 * symmetric (amax / 127), u8 spans [min(0, min x), max(0, max x)].  The
 * AVX-512 and C implementations give the same bits.  Return 0, -EINVAL
 * (a NULL or overlapping array, ldx or ldq < k), -EOVERFLOW (an array
 * that cannot exist) or -EDOM (a NaN or infinity in x); on error
 * nothing is written.
 * ------------------------------------------------------------------ */

/*
 * Quantize @m rows of @k values (rows @ldx elements apart) to 8 bits,
 * one scale per row, for amx_gemm_s8s8()/amx_gemm_u8s8() (as A):
 * real value ~= scales[i] * (q - zero_points[i]).
 */
AMX_API int amx_quantize_s8(size_t m, size_t k, const float *x, size_t ldx,
			    int8_t *q, size_t ldq, float *scales);
AMX_API int amx_quantize_u8(size_t m, size_t k, const float *x, size_t ldx,
			    uint8_t *q, size_t ldq, float *scales,
			    int32_t *zero_points);
AMX_API int amx_quantize_bf16_s8(size_t m, size_t k, const amx_bf16 *x,
				 size_t ldx, int8_t *q, size_t ldq,
				 float *scales);
AMX_API int amx_quantize_bf16_u8(size_t m, size_t k, const amx_bf16 *x,
				 size_t ldx, uint8_t *q, size_t ldq,
				 float *scales, int32_t *zero_points);

/* --------------------------------------------------------------------
 * Weight-only quantized B (see amx_wq_create(3) and amx_gemm_bf16_wq(3))
 *
 * B[k x n] stored as 8- or 4-bit integers q with one fp32 scale s per
 * group of @group consecutive rows of a column (32, 64 or 128; 0: one
 * per column), re-laid out once for the GEMM that reads it at memory
 * speed.  The weight a q stands for:
 *
 *   AMX_WQ_S8   q in [-128, 127]   w = s * q
 *   AMX_WQ_S4   q in [-8, 7]       w = s * q
 *   AMX_WQ_U4   q in [0, 15]       w = s * (q - z)   z per group (zp), or 8
 *                                  w = s * q + m     m per group (mins)
 * ------------------------------------------------------------------ */

enum amx_wq_type {
	AMX_WQ_S8 = 1,
	AMX_WQ_S4 = 2,
	AMX_WQ_U4 = 3,
};

struct amx_wq_desc {
	uint32_t type;		/* enum amx_wq_type */
	uint32_t group;		/* rows of B per scale: 32, 64, 128; 0: k */
	size_t k, n;		/* B is k x n */
	const int8_t *q;	/* [k][ldq] the integers (U4: 0..15) */
	size_t ldq;		/* >= n */
	const float *scales;	/* [k / group][n], finite and > 0 */
	const uint8_t *zp;	/* U4: [k / group][n] zero points 0..15, or NULL */
	const float *mins;	/* U4: [k / group][n] finite offsets m, or NULL */
	uint32_t reserved[4];	/* 0 */
};

struct amx_wq;

/*
 * Check @desc and pack its B into *@w (the caller's arrays may go after
 * the call).  Returns 0, -EINVAL (NULL w, desc, q or scales, type or
 * group unknown, k or n 0, group not dividing k, ldq < n, a misaligned
 * scales or mins array, zp or mins on a type other than U4, both of
 * them, a reserved field not 0), -ERANGE (a q or zero point outside its
 * type's range), -EDOM (a scale not finite or not > 0, a min not
 * finite), -EOVERFLOW (a B that cannot exist) or -ENOMEM; *@w is left
 * alone on error.
 */
AMX_API int amx_wq_create(struct amx_wq **w, const struct amx_wq_desc *desc);
/*
 * Quantize the fp32 B[k][ldb] (k x n) group by group (@group as in
 * struct amx_wq_desc) and pack it as amx_wq_create() does.  S8 and S4:
 * symmetric, s = max |x| / 127 (or / 7), q = round(x / s) clamped to
 * the type's range; U4: lo = min(0, min x), hi = max(0, max x),
 * s = (hi - lo) / 15, z = round(-lo / s), q = round(x / s) + z clamped
 * to [0, 15].  A group of zeros gets s = 1.  Returns 0, -EINVAL (NULL w
 * or b, type or group unknown, k or n 0, group not dividing k, ldb < n),
 * -EDOM (a NaN or infinity in B), -EOVERFLOW or -ENOMEM.
 */
AMX_API int amx_wq_quantize(struct amx_wq **w, enum amx_wq_type type,
			    uint32_t group, size_t k, size_t n, const float *b,
			    size_t ldb);
AMX_API void amx_wq_free(struct amx_wq *w);
/* bytes a GEMM reads from @w: quantized weights and scales (0 for NULL) */
AMX_API size_t amx_wq_size(const struct amx_wq *w);
/*
 * The fp32 weights @w stands for, B[k][ldb] (each computed as in the
 * table above, one rounding).  Returns 0 or -EINVAL (NULL w or b,
 * ldb < n, b overlapping w).
 */
AMX_API int amx_wq_dequantize(const struct amx_wq *w, float *b, size_t ldb);

/* llama.cpp (ggml) block formats, numbered as ggml numbers them */
enum amx_ggml_type {
	AMX_GGML_Q4_0 = 2,	/* fp16 d, 16 bytes of nibbles: d * (q - 8) */
	AMX_GGML_Q4_1 = 3,	/* fp16 d, fp16 m, 16 bytes: d * q + m */
	AMX_GGML_Q8_0 = 8,	/* fp16 d, 32 int8: d * q */
};

/*
 * Import a ggml weight tensor of @n rows (output features) of @k values
 * each, in blocks of 32 along k, rows @row_bytes apart, as the B (k x n)
 * of C = A * W^T: the layout llama.cpp multiplies.  The dequantized
 * weights are ggml's bit for bit.  Returns 0, -EINVAL (NULL w or data,
 * type unknown, k or n 0, k not a multiple of 32, row_bytes below a
 * row's blocks), -EDOM (a d or m not finite), -EOVERFLOW or -ENOMEM.
 */
AMX_API int amx_wq_import_ggml(struct amx_wq **w, enum amx_ggml_type type,
			       size_t n, size_t k, const void *data,
			       size_t row_bytes);

/*
 * C[m x n] (+)= A[m x k] * B, bf16 A, B from @w (its k and n), fp32
 * accumulation; with @ep (NULL: none, C fp32) the fused epilogue as in
 * amx_gemm_bf16_ep() without row scales.  Returns 0 (m 0: nothing done)
 * or -EINVAL (NULL a, w or c, lda < k, ldc < n, flags unknown, ep's n
 * not w's, C overlapping A or w), -EOVERFLOW, -ENOMEM, and with
 * AMX_GEMM_QUANTIZE_A -EDOM (a NaN or infinity in A); on error C is
 * untouched.
 */
AMX_API int amx_gemm_bf16_wq(unsigned int flags, size_t m, const amx_bf16 *a,
			     size_t lda, const struct amx_wq *w, void *c,
			     size_t ldc, const struct amx_epilogue *ep);
/*
 * The same with 8-bit A as amx_quantize_s8() / amx_quantize_u8() make
 * it: A[i][k] stands for row_scale[i] * (a[i][k] - row_zp[i])
 * (row_scale NULL: 1; row_zp NULL: 0); integer dot products per group
 * (AMX from 32 rows, AVX-512 VNNI, or C), exact, then scaled.  Returns what
 * amx_gemm_bf16_wq() returns, and -EINVAL for a row scale not finite or
 * not > 0, a zero point outside [0, 255], row_scale or row_zp under C.
 */
AMX_API int amx_gemm_s8_wq(unsigned int flags, size_t m, const int8_t *a,
			   size_t lda, const float *row_scale,
			   const struct amx_wq *w, void *c, size_t ldc,
			   const struct amx_epilogue *ep);
AMX_API int amx_gemm_u8_wq(unsigned int flags, size_t m, const uint8_t *a,
			   size_t lda, const float *row_scale,
			   const int32_t *row_zp, const struct amx_wq *w,
			   void *c, size_t ldc, const struct amx_epilogue *ep);

/* --------------------------------------------------------------------
 * Topology, thread placement and weight placement
 * (see amx_get_topology(3))
 * ------------------------------------------------------------------ */

/* One CPU of the affinity mask, as sysfs describes it. */
struct amx_cpu_topology {
	int32_t cpu;		/* Linux CPU number */
	int32_t core;		/* physical core: index 0..ncores-1 */
	int32_t package;	/* physical_package_id */
	int32_t node;		/* NUMA node number (0 without NUMA) */
	int32_t l2, l3;		/* index of its L2 / L3 domain, -1 unknown */
	int32_t smt;		/* 0: its core's first CPU in the mask, 1..: siblings */
	int32_t reserved;
};

/* What the machine is, restricted to this thread's affinity mask. */
struct amx_topology {
	uint32_t ncpus;		/* CPUs in the affinity mask */
	uint32_t ncores;	/* physical cores among them */
	uint32_t npackages;	/* sockets among them */
	uint32_t nnodes;	/* NUMA nodes among them */
	uint32_t nl2, nl3;	/* L2 and L3 domains among them */
	/*
	 * 0 when the kernel places memory on request (mbind(2)); else why
	 * not: -ENOSYS (kernel without NUMA), -EPERM (a container's seccomp
	 * profile).  Weights then stay where the first touch put them.
	 */
	int32_t numa_err;
	uint32_t reserved[9];
};

/*
 * Fill @topo and up to @n entries of @cpus (may be NULL when @n is 0),
 * ordered by node, package, core, then sibling.  Read from sysfs on each
 * call: the pool reads it when it starts.  Returns the number of CPUs (of
 * which min(n, that) were written), or -EINVAL for a NULL @topo, or @cpus
 * NULL with @n > 0; -ENOENT when sysfs describes none of the mask's CPUs.
 */
AMX_API int amx_get_topology(struct amx_topology *topo,
			     struct amx_cpu_topology *cpus, size_t n);

/*
 * Pinning of the pool's workers, one per physical core in node order
 * (the caller, thread 0, is never pinned): 1 (the default, unless
 * AMX_PIN=0) or 0.  Restarts the pool.  Returns 0 or -EINVAL.
 */
AMX_API int amx_set_pinning(int on);

/* One thread of the pool. */
struct amx_pool_thread {
	int32_t tid;		/* gettid() of the thread */
	int32_t cpu;		/* CPU it is pinned to, -1 not pinned */
	int32_t node;		/* NUMA node whose columns it takes first */
	int32_t reserved;
};

/*
 * Start the pool if needed and fill up to @n entries of @t (may be NULL
 * when @n is 0): thread 0 is the calling thread.  Returns the number of
 * threads, or -EINVAL (@t NULL with @n > 0).
 */
AMX_API int amx_get_pool_threads(struct amx_pool_thread *t, size_t n);

/* Where the weights created from now on go (amx_set_placement()). */
enum amx_placement {
	/* each node holds the columns its threads compute (the default) */
	AMX_PLACE_SPLIT = 0,
	/* pages spread round-robin over the pool's nodes */
	AMX_PLACE_INTERLEAVE = 1,
	/* no request: the node of the first touch (the creating thread's,
	 * for memory the allocator had not handed out before) */
	AMX_PLACE_LOCAL = 2,
	/* one copy per node, each thread reads its node's (small weights) */
	AMX_PLACE_REPLICATE = 3,
};

/*
 * Placement of the packed weights that amx_packed_b_create() and
 * amx_wq_create() make from now on, in the process (AMX_PLACEMENT=split|
 * interleave|local|replicate sets the start value).  On one node every
 * placement is the same.  Returns 0 or -EINVAL.
 */
AMX_API int amx_set_placement(enum amx_placement p);
AMX_API enum amx_placement amx_get_placement(void);

/* A byte range of packed weights, and the node meant to hold it. */
struct amx_mem_range {
	const void *addr;	/* page aligned */
	size_t bytes;		/* a multiple of the page size */
	size_t col0, col1;	/* the columns of B it holds */
	int32_t node;		/* the node asked for; -1: none (local, interleave) */
	uint32_t flags;		/* AMX_RANGE_* */
};
/* the kernel took the request (mbind(2) succeeded) */
#define AMX_RANGE_PLACED	(1u << 0)
/* a copy of the whole matrix (AMX_PLACE_REPLICATE) */
#define AMX_RANGE_COPY		(1u << 1)

/*
 * The page ranges of @pb / @w's packed weights and the node each is meant
 * for: fills up to @n entries of @r (may be NULL when @n is 0).  A page
 * that holds columns of two nodes belongs to the range of the first.
 * Returns the number of ranges, or -EINVAL (NULL handle, @r NULL with
 * @n > 0).
 */
AMX_API int amx_packed_b_ranges(const struct amx_packed_b *pb,
				struct amx_mem_range *r, size_t n);
AMX_API int amx_wq_ranges(const struct amx_wq *w, struct amx_mem_range *r,
			  size_t n);

#ifdef __cplusplus
}
#endif

#endif /* AMX_H */
