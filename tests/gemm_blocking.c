// SPDX-License-Identifier: MIT
/*
 * GEMM blocking: the tuning file (good, malformed, another CPU's, another
 * version, older versions, a saved one read back), AMX_GEMM_BLOCKS (good, invalid -> ignored with a diagnostic),
 * amx_gemm_set_blocking(), and exact results (int8) / results within the
 * bound (bf16) with odd blockings on every backend this machine runs.
 * The file and the environment are read once per process: each case runs
 * in a child with its own $XDG_CACHE_HOME.
 */
#include "gemm_grid.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char tmpdir[] = "/tmp/amx-blocking-XXXXXX";
static char cpu_line[512];	/* "cpu ..." of this machine, from a save */
static char errfile[700];

/* write_file() texts that put something other than a file there */
#define AS_FIFO		"\001fifo"
#define AS_DIR		"\001dir"
#define AS_BIG		"\001big"

static void write_file(const char *dir, const char *text)
{
	char path[700];
	FILE *f;

	snprintf(path, sizeof(path), "%s/libamx", dir);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/libamx/gemm-blocking", dir);
	if (!strcmp(text, AS_FIFO)) {
		mkfifo(path, 0644);
		return;
	}
	if (!strcmp(text, AS_DIR)) {
		mkdir(path, 0755);
		return;
	}
	if (!strcmp(text, AS_BIG)) {	/* a good start, then 1 MiB more */
		f = fopen(path, "w");
		if (f) {
			fprintf(f, "libamx-gemm-blocking 4\n");
			for (int i = 0; i < 1 << 20; i++)
				fputc('#', f);
			fclose(f);
		}
		return;
	}
	f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

/* expectations a child checks; -1 = any */
struct expect {
	int file_status;
	int be, op;			/* the slot checked */
	int source;
	unsigned int kc, mc, nc, pf;	/* 0: not checked */
	const char *stderr_has;		/* NULL: stderr must be empty */
	int edge;			/* 1 + enum amx_gemm_edge; 0: not checked */
	int cio;			/* 1 + enum amx_gemm_cio; 0: not checked */
	unsigned long small;		/* 1 + small; 0: not checked */
};

static int child_check(const struct expect *e)
{
	struct amx_gemm_blocking b;
	int st = 12345, ok = 1;

	amx_gemm_blocking_file(&st);
	if (e->file_status != -1 && st != e->file_status) {
		printf("# file status %d, want %d\n", st, e->file_status);
		ok = 0;
	}
	if (amx_gemm_get_blocking(e->be, e->op, &b)) {
		printf("# get_blocking failed\n");
		return 0;
	}
	if ((int)b.source != e->source) {
		printf("# source %u, want %d\n", b.source, e->source);
		ok = 0;
	}
	if ((e->kc && b.kc != e->kc) || (e->mc && b.mc != e->mc) ||
	    (e->nc && b.nc != e->nc) || (e->pf && b.prefetch != e->pf)) {
		printf("# got kc %u mc %u nc %u pf %u, want %u %u %u %u\n",
		       b.kc, b.mc, b.nc, b.prefetch, e->kc, e->mc, e->nc, e->pf);
		ok = 0;
	}
	if (e->edge && (int)b.edge != e->edge - 1) {
		printf("# edge %u, want %d\n", b.edge, e->edge - 1);
		ok = 0;
	}
	if (e->cio && (int)b.cio != e->cio - 1) {
		printf("# cio %u, want %d\n", b.cio, e->cio - 1);
		ok = 0;
	}
	if (e->small && b.small != e->small - 1) {
		printf("# small %u, want %lu\n", b.small, e->small - 1);
		ok = 0;
	}
	return ok;
}

/*
 * Run one case in a child: @file (NULL: none) as the user's tuning file,
 * @env as AMX_GEMM_BLOCKS (NULL: unset).
 */
static void run_case(const char *what, const char *file, const char *env,
		     const struct expect *e)
{
	char dir[600], err[4096] = "";
	int status = 0, ok;
	pid_t pid;
	FILE *f;

	static int n;

	snprintf(dir, sizeof(dir), "%s/case%d", tmpdir, n++);
	mkdir(dir, 0755);
	if (file)
		write_file(dir, file);
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		int fd;

		setenv("XDG_CACHE_HOME", dir, 1);
		if (env)
			setenv("AMX_GEMM_BLOCKS", env, 1);
		else
			unsetenv("AMX_GEMM_BLOCKS");
		fd = open(errfile, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd >= 0) {
			dup2(fd, 2);
			close(fd);
		}
		_exit(child_check(e) ? 0 : 1);
	}
	waitpid(pid, &status, 0);
	f = fopen(errfile, "r");
	if (f) {
		size_t len = fread(err, 1, sizeof(err) - 1, f);

		err[len] = 0;
		fclose(f);
	}
	ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
	if (e->stderr_has ? !strstr(err, e->stderr_has) : err[0] != 0) {
		printf("# stderr: '%s'\n", err);
		ok = 0;
	}
	tap_ok(ok, "%s", what);
}

static void files_and_env(void)
{
	char good[2048], text[2048];
	const int AVX = AMX_GEMM_BACKEND_AVX512, C = AMX_GEMM_BACKEND_C;
	const int BF = AMX_GEMM_OP_BF16, U8 = AMX_GEMM_OP_U8S8;
	const int AMX = AMX_GEMM_BACKEND_AMX, S8 = AMX_GEMM_OP_S8S8;
	static const char *const bad_lines[] = {
		"avx512 bf16 x 1 2 3 copy block\n",	/* not a number */
		"gpu bf16 64 64 64 0 copy block\n",	/* unknown backend */
		"avx512 fp8 64 64 64 0 copy block\n",	/* unknown op */
		"avx512 bf16 -64 64 64 0 copy block\n",	/* negative */
		"avx512 bf16 0 64 64 0 copy block\n",	/* out of range */
		"avx512 bf16 64 64 64 0 copy\n",	/* a field short */
		"avx512 bf16 64 64 64 0 copy block 9\n",	/* a field too many */
		"avx512 bf16 64 99999 64 0 copy block\n",	/* mc too large */
		"amx bf16 64 64 64 0 diagonal block\n",	/* unknown edge */
		"amx bf16 64 64 64 0 1 block\n",	/* edge as a number */
		"amx bf16 64 64 64 0 copy overlap\n",	/* unknown cio */
		"amx bf16 64 64 64 0 copy 1\n",	/* cio as a number */
		"amx bf16 64 64 64 0 interleave copy\n",	/* swapped */
	};
	struct expect e;

	/* no file: defaults */
	e = (struct expect){ -ENOENT, AVX, BF, 0, 0, 0, 0, 0, NULL, 0, 0, 0 };
	run_case("no tuning file: defaults", NULL, NULL, &e);

	/* a good file: values rounded to the backend's granules */
	snprintf(good, sizeof(good),
		 "libamx-gemm-blocking 3\n%s\n# comment\n\n"
		 "avx512 bf16 320 100 1000 2 copy block\n"
		 "c u8s8 64 12 32 0 copy block\n"
		 "amx s8s8 128 32 64 1 tiles interleave\n"
		 "amx u8s8 128 32 64 1 copy block\n",
		 cpu_line);
	e = (struct expect){ 0, AVX, BF, AMX_GEMM_BLOCKING_FILE, 320, 108, 1024, 2, NULL, 0, 0, 0 };
	run_case("good file: avx512 bf16 from the file, rounded", good, NULL, &e);
	e = (struct expect){ 0, C, U8, AMX_GEMM_BLOCKING_FILE, 64, 12, 32, 0, NULL, 0, 0, 0 };
	run_case("good file: c u8s8 from the file", good, NULL, &e);
	e = (struct expect){ 0, AVX, U8, AMX_GEMM_BLOCKING_DEFAULT, 0, 0, 0, 0, NULL, 0, 0, 0 };
	run_case("good file: slots it does not name keep the defaults", good, NULL, &e);
	e = (struct expect){ 0, AMX, S8, AMX_GEMM_BLOCKING_FILE, 128, 32, 64, 1,
			     NULL, 1 + AMX_GEMM_EDGE_TILES,
			     1 + AMX_GEMM_CIO_INTERLEAVE, 0 };
	run_case("good file: amx s8s8 with tile edges, C interleaved", good,
		 NULL, &e);
	e = (struct expect){ 0, AMX, U8, AMX_GEMM_BLOCKING_FILE, 128, 32, 64, 1,
			     NULL, 1 + AMX_GEMM_EDGE_COPY, 1 + AMX_GEMM_CIO_BLOCK, 0 };
	run_case("good file: amx u8s8 with edges copied, C around the K loop",
		 good, NULL, &e);
	e = (struct expect){ 0, AMX, U8, AMX_GEMM_BLOCKING_FILE, 128, 32, 64, 1,
			     NULL, 0, 0, 1 + (1ul << 18) };
	run_case("version 3 file (no small field): amx u8s8 keeps the built-in "
		 "small (2^18)", good, NULL, &e);
	snprintf(text, sizeof(text),
		 "libamx-gemm-blocking 4\n%s\namx bf16 128 32 64 0 copy "
		 "interleave 4096\navx512 u8s8 256 24 512 0 copy block 777\n",
		 cpu_line);
	e = (struct expect){ 0, AMX, BF, AMX_GEMM_BLOCKING_FILE, 128, 32, 64, 0,
			     NULL, 1 + AMX_GEMM_EDGE_COPY,
			     1 + AMX_GEMM_CIO_INTERLEAVE, 1 + 4096 };
	run_case("version 4 file: amx bf16 small 4096", text, NULL, &e);
	e = (struct expect){ 0, AVX, U8, AMX_GEMM_BLOCKING_FILE, 256, 24, 512, 0,
			     NULL, 0, 0, 1 + 0 };
	run_case("version 4 file: small on avx512 reads back as 0", text, NULL,
		 &e);
	snprintf(text, sizeof(text),
		 "libamx-gemm-blocking 3\n%s\namx bf16 128 32 64 0 copy "
		 "block 4096\n", cpu_line);
	e = (struct expect){ -EINVAL, AMX, BF, AMX_GEMM_BLOCKING_DEFAULT, 0, 0,
			     0, 0, NULL, 0, 0, 1 + (1ul << 16) };
	run_case("version 3 file with a small field: malformed, built-in small "
		 "(2^16)", text, NULL, &e);
	snprintf(text, sizeof(text),
		 "libamx-gemm-blocking 2\n%s\namx s8s8 128 32 64 1 tiles\n",
		 cpu_line);
	e = (struct expect){ 0, AMX, S8, AMX_GEMM_BLOCKING_FILE, 128, 32, 64, 1,
			     NULL, 1 + AMX_GEMM_EDGE_TILES, 1 + AMX_GEMM_CIO_BLOCK, 0 };
	run_case("version 2 file (no cio field): read, C around the K loop",
		 text, NULL, &e);
	snprintf(text, sizeof(text),
		 "libamx-gemm-blocking 2\n%s\namx s8s8 128 32 64 1 tiles "
		 "interleave\n", cpu_line);
	e = (struct expect){ -EINVAL, AMX, S8, AMX_GEMM_BLOCKING_DEFAULT, 0, 0, 0, 0,
			     NULL, 0, 0, 0 };
	run_case("version 2 file with a cio field: malformed", text, NULL, &e);
	snprintf(text, sizeof(text),
		 "libamx-gemm-blocking 1\n%s\namx s8s8 128 32 64 1\n", cpu_line);
	e = (struct expect){ 0, AMX, S8, AMX_GEMM_BLOCKING_FILE, 128, 32, 64, 1,
			     NULL, 1 + AMX_GEMM_EDGE_COPY, 1 + AMX_GEMM_CIO_BLOCK, 0 };
	run_case("version 1 file (no edge, cio): read, edges copied, C around "
		 "the K loop", text, NULL, &e);
	snprintf(text, sizeof(text),
		 "libamx-gemm-blocking 1\n%s\namx s8s8 128 32 64 1 tiles\n", cpu_line);
	e = (struct expect){ -EINVAL, AMX, S8, AMX_GEMM_BLOCKING_DEFAULT, 0, 0, 0, 0,
			     NULL, 0, 0, 0 };
	run_case("version 1 file with an edge field: malformed", text, NULL, &e);

	for (size_t i = 0; i < sizeof(bad_lines) / sizeof(bad_lines[0]); i++) {
		char what[96];

		snprintf(text, sizeof(text),
			 "libamx-gemm-blocking 3\n%s\nc u8s8 64 12 32 0 copy block\n%s",
			 cpu_line, bad_lines[i]);
		e = (struct expect){ -EINVAL, C, U8, AMX_GEMM_BLOCKING_DEFAULT,
				     0, 0, 0, 0, NULL, 0, 0, 0 };
		snprintf(what, sizeof(what), "malformed file ignored as a whole: %.*s",
			 (int)strlen(bad_lines[i]) - 1, bad_lines[i]);
		run_case(what, text, NULL, &e);
	}
	e = (struct expect){ -EINVAL, C, U8, AMX_GEMM_BLOCKING_DEFAULT, 0, 0, 0, 0, NULL, 0, 0, 0 };
	run_case("empty file ignored", "", NULL, &e);
	run_case("file without a cpu line ignored",
		 "libamx-gemm-blocking 3\nc u8s8 64 12 32 0 copy block\n", NULL, &e);
	run_case("binary junk ignored", "\x7f" "ELF\x02\x01\x01\n\xff\xfe", NULL, &e);
	/* not a regular file: never read, the first GEMM does not wait */
	run_case("a FIFO at the tuning file's path ignored, not waited on",
		 AS_FIFO, NULL, &e);
	run_case("a directory at the tuning file's path ignored", AS_DIR, NULL,
		 &e);
	run_case("a tuning file over 64 KiB ignored", AS_BIG, NULL, &e);

	e = (struct expect){ -ESTALE, C, U8, AMX_GEMM_BLOCKING_DEFAULT, 0, 0, 0, 0, NULL, 0, 0, 0 };
	run_case("file from another CPU ignored",
		 "libamx-gemm-blocking 3\ncpu GenuineIntel 6.143.8 l1d=49152 "
		 "l2=2097152 l3=110100480\nc u8s8 64 12 32 0 copy block\n", NULL, &e);
	e = (struct expect){ -EPROTO, C, U8, AMX_GEMM_BLOCKING_DEFAULT, 0, 0, 0, 0, NULL, 0, 0, 0 };
	for (int v = 0; v <= 5; v += 5) {
		char what[64];

		snprintf(text, sizeof(text), "libamx-gemm-blocking %d\n%s\n"
			 "c u8s8 64 12 32 0 copy block\n", v, cpu_line);
		snprintf(what, sizeof(what), "file of format version %d ignored", v);
		run_case(what, text, NULL, &e);
	}

	/* a file the library saved reads back as it was set */
	{
		char path[700];
		size_t len = 0;
		int st = 0;
		FILE *f;

		snprintf(path, sizeof(path), "%s/roundtrip", tmpdir);
		fflush(stdout);
		if (fork() == 0) {
			struct amx_gemm_blocking b = {
				.kc = 128, .mc = 64, .nc = 96, .prefetch = 2,
				.edge = AMX_GEMM_EDGE_TILES,
				.cio = AMX_GEMM_CIO_INTERLEAVE,
				.small = 12345,
			};

			amx_gemm_set_blocking(AMX, S8, &b);
			_exit(amx_gemm_blocking_save(path) ? 1 : 0);
		}
		wait(&st);
		text[0] = 0;
		f = fopen(path, "r");
		if (f) {
			len = fread(text, 1, sizeof(text) - 1, f);
			text[len] = 0;
			fclose(f);
		}
		e = (struct expect){ 0, AMX, S8, AMX_GEMM_BLOCKING_FILE, 128, 64,
				     96, 2, NULL, 1 + AMX_GEMM_EDGE_TILES,
				     1 + AMX_GEMM_CIO_INTERLEAVE, 1 + 12345 };
		run_case("saved file (format 4) reads back: kc, mc, nc, "
			 "prefetch, edge, cio, small", len ? text : "", NULL,
			 &e);
	}

	/* the environment */
	e = (struct expect){ -ENOENT, AVX, BF, AMX_GEMM_BLOCKING_ENV, 64, 24, 0, 3, NULL, 0, 0, 0 };
	run_case("AMX_GEMM_BLOCKS sets fields", NULL,
		 "avx512:bf16:kc=64,mc=24,pf=3", &e);
	e = (struct expect){ -ENOENT, C, U8, AMX_GEMM_BLOCKING_ENV, 0, 0, 64, 0, NULL, 0, 0, 0 };
	run_case("AMX_GEMM_BLOCKS wildcards", NULL,
		 "avx512:bf16:kc=64; *:u8s8:nc=50", &e);
	e = (struct expect){ 0, AVX, BF, AMX_GEMM_BLOCKING_ENV, 64, 108, 1024, 2, NULL, 0, 0, 0 };
	run_case("AMX_GEMM_BLOCKS over the file, other fields from the file",
		 good, "avx512:bf16:kc=64", &e);
	e = (struct expect){ -ENOENT, AMX, BF, AMX_GEMM_BLOCKING_ENV, 0, 0, 0, 0,
			     NULL, 1 + AMX_GEMM_EDGE_TILES, 0, 0 };
	run_case("AMX_GEMM_BLOCKS edge=tiles", NULL, "amx:*:edge=tiles", &e);
	e = (struct expect){ -ENOENT, AVX, BF, AMX_GEMM_BLOCKING_ENV, 0, 0, 0, 0,
			     NULL, 1 + AMX_GEMM_EDGE_COPY, 0, 0 };
	run_case("AMX_GEMM_BLOCKS edge=tiles: other backends keep copy", NULL,
		 "*:*:edge=tiles", &e);
	e = (struct expect){ -ENOENT, AMX, U8, AMX_GEMM_BLOCKING_DEFAULT, 0, 0, 0,
			     0, NULL, 1 + AMX_GEMM_EDGE_COPY,
			     1 + AMX_GEMM_CIO_INTERLEAVE, 0 };
	run_case("defaults: amx copies edges and interleaves C", NULL, NULL, &e);
	e = (struct expect){ -ENOENT, AMX, U8, AMX_GEMM_BLOCKING_ENV, 0, 0, 0, 0,
			     NULL, 1 + AMX_GEMM_EDGE_COPY,
			     1 + AMX_GEMM_CIO_BLOCK, 0 };
	run_case("AMX_GEMM_BLOCKS cio=block", NULL, "amx:*:cio=block", &e);
	e = (struct expect){ 0, AMX, S8, AMX_GEMM_BLOCKING_ENV, 128, 32, 64, 1,
			     NULL, 1 + AMX_GEMM_EDGE_TILES, 1 + AMX_GEMM_CIO_BLOCK, 0 };
	run_case("AMX_GEMM_BLOCKS cio=block over the file, edge from the file",
		 good, "amx:s8s8:cio=block", &e);
	e = (struct expect){ -ENOENT, AVX, BF, AMX_GEMM_BLOCKING_ENV, 0, 0, 0, 0,
			     NULL, 0, 1 + AMX_GEMM_CIO_BLOCK, 0 };
	run_case("AMX_GEMM_BLOCKS cio=interleave: other backends keep block",
		 NULL, "*:*:cio=interleave", &e);
	e = (struct expect){ -ENOENT, AMX, S8, AMX_GEMM_BLOCKING_ENV, 0, 0, 0, 0,
			     NULL, 0, 0, 1 + 0 };
	run_case("AMX_GEMM_BLOCKS small=0: every amx call on AMX", NULL,
		 "amx:*:small=0", &e);
	e = (struct expect){ -ENOENT, AVX, BF, AMX_GEMM_BLOCKING_ENV, 0, 0, 0, 0,
			     NULL, 0, 0, 1 + 0 };
	run_case("AMX_GEMM_BLOCKS small: other backends keep 0", NULL,
		 "*:*:small=99", &e);
	e = (struct expect){ -ENOENT, AMX, BF, AMX_GEMM_BLOCKING_ENV, 0, 0, 0, 0,
			     NULL, 0, 0, 1 + 99 };
	run_case("AMX_GEMM_BLOCKS small=99 on amx", NULL, "*:*:small=99", &e);
	{
		static const char *const bad_env[] = {
			"avx512:bf16:kc=abc", "gpu:*:kc=64", "avx512:bf16:kc=0",
			"avx512:bf16", "avx512:bf16:", "avx512:bf16:xx=5",
			"*:*:kc=99999999999", "avx512:bf16:kc=64;c:u8s8:mc=-1",
			"amx:*:edge=diagonal", "amx:*:edge=1", "amx:*:edge=",
			"amx:*:cio=overlap", "amx:*:cio=1", "amx:*:cio=",
			"amx:*:cio=interleave,edge=round",
			"amx:*:small=", "amx:*:small=x", "amx:*:small=-1",
			"amx:*:small=1073741825",
		};

		for (size_t i = 0; i < sizeof(bad_env) / sizeof(bad_env[0]); i++) {
			char what[96], want[160];

			/* the line every ignored variable gets (libamx(7)) */
			snprintf(want, sizeof(want),
				 "libamx: AMX_GEMM_BLOCKS='%s' ignored: ",
				 bad_env[i]);
			e = (struct expect){ 0, AVX, BF, AMX_GEMM_BLOCKING_FILE,
					     320, 108, 1024, 2, want, 0, 0, 0 };
			snprintf(what, sizeof(what),
				 "invalid AMX_GEMM_BLOCKS='%s' ignored with a diagnostic",
				 bad_env[i]);
			run_case(what, good, bad_env[i], &e);
		}
	}
}

static void api(void)
{
	struct amx_gemm_blocking b, g;
	size_t i;
	int ok;

	b = (struct amx_gemm_blocking){ .kc = 33, .mc = 5, .nc = 1, .prefetch = 3 };
	ok = !amx_gemm_set_blocking(AMX_GEMM_BACKEND_AVX512, AMX_GEMM_OP_U8S8, &b) &&
	     !amx_gemm_get_blocking(AMX_GEMM_BACKEND_AVX512, AMX_GEMM_OP_U8S8, &g) &&
	     g.kc == 64 && g.mc == 12 && g.nc == 32 && g.prefetch == 3 &&
	     g.source == AMX_GEMM_BLOCKING_API;
	tap_ok(ok, "set_blocking: rounded (kc %u mc %u nc %u), source api", g.kc,
		 g.mc, g.nc);
	ok = !amx_gemm_set_blocking(AMX_GEMM_BACKEND_AVX512, AMX_GEMM_OP_U8S8, NULL) &&
	     !amx_gemm_get_blocking(AMX_GEMM_BACKEND_AVX512, AMX_GEMM_OP_U8S8, &g) &&
	     g.source != AMX_GEMM_BLOCKING_API;
	tap_ok(ok, "set_blocking(NULL) goes back");
	b.kc = 0;
	ok = amx_gemm_set_blocking(AMX_GEMM_BACKEND_C, AMX_GEMM_OP_BF16, &b) == -EINVAL;
	b.kc = 64;
	b.prefetch = 65;
	ok &= amx_gemm_set_blocking(AMX_GEMM_BACKEND_C, AMX_GEMM_OP_BF16, &b) == -EINVAL;
	b.prefetch = 0;
	b.edge = AMX_GEMM_EDGE_TILES + 1;
	ok &= amx_gemm_set_blocking(AMX_GEMM_BACKEND_AMX, AMX_GEMM_OP_BF16, &b) == -EINVAL;
	b.edge = AMX_GEMM_EDGE_COPY;
	ok &= amx_gemm_set_blocking(0, AMX_GEMM_OP_BF16, &b) == -EINVAL;
	ok &= amx_gemm_set_blocking(AMX_GEMM_BACKEND_C, 5, &b) == -EINVAL;
	ok &= amx_gemm_get_blocking(AMX_GEMM_BACKEND_C, AMX_GEMM_OP_BF16, NULL) == -EINVAL;
	tap_ok(ok, "set/get_blocking: -EINVAL for bad values and arguments");
	b = (struct amx_gemm_blocking){ .kc = 64, .mc = 32, .nc = 32,
					.edge = AMX_GEMM_EDGE_TILES };
	ok = !amx_gemm_set_blocking(AMX_GEMM_BACKEND_AMX, AMX_GEMM_OP_BF16, &b) &&
	     !amx_gemm_get_blocking(AMX_GEMM_BACKEND_AMX, AMX_GEMM_OP_BF16, &g) &&
	     g.edge == AMX_GEMM_EDGE_TILES &&
	     !amx_gemm_set_blocking(AMX_GEMM_BACKEND_C, AMX_GEMM_OP_BF16, &b) &&
	     !amx_gemm_get_blocking(AMX_GEMM_BACKEND_C, AMX_GEMM_OP_BF16, &g) &&
	     g.edge == AMX_GEMM_EDGE_COPY;
	tap_ok(ok, "set_blocking: edge kept for amx, copy on other backends");
	b = (struct amx_gemm_blocking){ .kc = 64, .mc = 32, .nc = 32,
					.cio = AMX_GEMM_CIO_INTERLEAVE + 1 };
	ok = amx_gemm_set_blocking(AMX_GEMM_BACKEND_AMX, AMX_GEMM_OP_BF16,
				   &b) == -EINVAL;
	b.cio = AMX_GEMM_CIO_INTERLEAVE;
	ok &= !amx_gemm_set_blocking(AMX_GEMM_BACKEND_AMX, AMX_GEMM_OP_BF16, &b) &&
	      !amx_gemm_get_blocking(AMX_GEMM_BACKEND_AMX, AMX_GEMM_OP_BF16, &g) &&
	      g.cio == AMX_GEMM_CIO_INTERLEAVE &&
	      !amx_gemm_set_blocking(AMX_GEMM_BACKEND_C, AMX_GEMM_OP_BF16, &b) &&
	      !amx_gemm_get_blocking(AMX_GEMM_BACKEND_C, AMX_GEMM_OP_BF16, &g) &&
	      g.cio == AMX_GEMM_CIO_BLOCK;
	tap_ok(ok, "set_blocking: cio > interleave -EINVAL; interleave kept "
		 "for amx, block on other backends");
	b = (struct amx_gemm_blocking){ .kc = 64, .mc = 32, .nc = 32,
					.small = (1u << 30) + 1 };
	ok = amx_gemm_set_blocking(AMX_GEMM_BACKEND_AMX, AMX_GEMM_OP_BF16,
				   &b) == -EINVAL;
	b.small = 1u << 30;
	ok &= !amx_gemm_set_blocking(AMX_GEMM_BACKEND_AMX, AMX_GEMM_OP_BF16, &b) &&
	      !amx_gemm_get_blocking(AMX_GEMM_BACKEND_AMX, AMX_GEMM_OP_BF16, &g) &&
	      g.small == 1u << 30 &&
	      !amx_gemm_set_blocking(AMX_GEMM_BACKEND_C, AMX_GEMM_OP_BF16, &b) &&
	      !amx_gemm_get_blocking(AMX_GEMM_BACKEND_C, AMX_GEMM_OP_BF16, &g) &&
	      g.small == 0;
	tap_ok(ok, "set_blocking: small > 2^30 -EINVAL; 2^30 kept for amx, "
		 "0 on other backends");
	amx_gemm_set_blocking(AMX_GEMM_BACKEND_AMX, AMX_GEMM_OP_BF16, NULL);
	ok = 1;
	for (i = 0; i < sizeof(b.reserved) / sizeof(*b.reserved); i++) {
		b = (struct amx_gemm_blocking){ .kc = 64, .mc = 32, .nc = 32 };
		b.reserved[i] = 1u << i;
		ok &= amx_gemm_set_blocking(AMX_GEMM_BACKEND_AMX,
					    AMX_GEMM_OP_BF16, &b) == -EINVAL;
	}
	memset(&g, 0xa5, sizeof(g));
	ok &= !amx_gemm_get_blocking(AMX_GEMM_BACKEND_AMX, AMX_GEMM_OP_BF16, &g) &&
	      g.source != AMX_GEMM_BLOCKING_API;
	for (i = 0; i < sizeof(g.reserved) / sizeof(*g.reserved); i++)
		ok &= g.reserved[i] == 0;
	tap_ok(ok, "set_blocking: a reserved field not 0 -EINVAL, nothing "
		 "set; get fills reserved with 0");
	amx_gemm_set_blocking(AMX_GEMM_BACKEND_C, AMX_GEMM_OP_BF16, NULL);
}

/* results with odd blockings on the backend in use now */
static void odd_blockings(void)
{
	static const struct amx_gemm_blocking odd[] = {
		{ .kc = 1, .mc = 1, .nc = 1 },
		{ .kc = 33, .mc = 13, .nc = 33, .prefetch = 3 },
		{ .kc = 100, .mc = 50, .nc = 70, .prefetch = 1 },
		{ .kc = 8192, .mc = 8192, .nc = 65536, .prefetch = 64 },
		{ .kc = 100, .mc = 50, .nc = 70, .prefetch = 1,
		  .edge = AMX_GEMM_EDGE_TILES, .cio = AMX_GEMM_CIO_INTERLEAVE },
	};
	static const size_t shapes[][3] = {
		{ 1, 1, 1 }, { 17, 33, 65 }, { 100, 64, 255 }, { 33, 100, 300 },
		{ 70, 40, 130 }, { 5, 200, 129 },
	};
	int be = amx_gemm_backend(AMX_GEMM_BF16);

	for (size_t i = 0; i < sizeof(odd) / sizeof(odd[0]); i++) {
		unsigned int bad = 0, cases = 0;
		double worst = 0;

		for (int op = AMX_GEMM_OP_BF16; op <= AMX_GEMM_OP_F16; op++)
			amx_gemm_set_blocking(be, op, &odd[i]);
		for (int type = T_BF16; type <= T_F16; type++)
			for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++)
				for (int v = 0; v < 2; v++, cases++)
					bad += !t_run_case(type, shapes[s][0],
							   shapes[s][1], shapes[s][2],
							   v, v, (int)s & 1, &worst);
		tap_ok(!bad, "%s: kc %u mc %u nc %u prefetch %u edge %u cio %u: "
			 "%u cases, %u wrong", t_backend_name(be), odd[i].kc,
			 odd[i].mc, odd[i].nc, odd[i].prefetch, odd[i].edge,
			 odd[i].cio, cases, bad);
		for (int op = AMX_GEMM_OP_BF16; op <= AMX_GEMM_OP_F16; op++)
			amx_gemm_set_blocking(be, op, NULL);
	}
}

static int rm_one(const char *path, const struct stat *st, int flag,
		  struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

/* amx_gemm_blocking_save(@path) in a child (see main()): its return value */
static int save_in_child(const char *path)
{
	int st = 0;

	fflush(stdout);
	if (fork() == 0) {
		struct amx_gemm_blocking b = { .kc = 64, .mc = 12, .nc = 32 };

		amx_gemm_set_blocking(AMX_GEMM_BACKEND_C, AMX_GEMM_OP_U8S8, &b);
		_exit(-amx_gemm_blocking_save(path) & 0xff);
	}
	wait(&st);
	return WIFEXITED(st) ? -WEXITSTATUS(st) : -1000;
}

/* whether a NAME.PID temporary of a save was left in @dir */
static int temp_left(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int left = 0;

	while (d && (e = readdir(d))) {
		const char *dot = strrchr(e->d_name, '.');

		if (dot && dot[1] && strspn(dot + 1, "0123456789") == strlen(dot + 1))
			left = 1;
	}
	if (d)
		closedir(d);
	return left;
}

/*
 * Where the tuning file is saved: a write error is returned, never "saved"
 * (/dev/full: -ENOSPC), and what is not a regular file stays what it was
 * (a rename over /dev/full, as root, replaced the device with a file).
 */
static void save_targets(void)
{
	char dir[700], path[800], link[800], line[64] = "";
	struct stat sb;
	FILE *f;
	int ret;

	snprintf(dir, sizeof(dir), "%s/save", tmpdir);
	mkdir(dir, 0755);
	if (stat("/dev/full", &sb) == 0 && S_ISCHR(sb.st_mode)) {
		ret = save_in_child("/dev/full");
		tap_ok(ret == -ENOSPC && !stat("/dev/full", &sb) &&
			 S_ISCHR(sb.st_mode),
			 "save to /dev/full: %d (-ENOSPC), still a device", ret);
	} else {
		tap_skip("no /dev/full device here", "save to /dev/full");
	}
	snprintf(path, sizeof(path), "%s/fifo", dir);
	mkfifo(path, 0644);
	ret = save_in_child(path);
	tap_ok(ret == -ENXIO && !stat(path, &sb) && S_ISFIFO(sb.st_mode),
		 "save to a FIFO without reader: %d (-ENXIO), not waited on, still a FIFO",
		 ret);
	snprintf(path, sizeof(path), "%s/d", dir);
	mkdir(path, 0755);
	ret = save_in_child(path);
	tap_ok(ret == -EISDIR, "save to a directory: %d (-EISDIR)", ret);
	snprintf(path, sizeof(path), "%s/no/such/dir/file", dir);
	ret = save_in_child(path);
	tap_ok(ret == -ENOENT, "save into a missing directory: %d (-ENOENT)",
		 ret);
	snprintf(path, sizeof(path), "%s/target", dir);
	snprintf(link, sizeof(link), "%s/link", dir);
	f = fopen(path, "w");
	if (f) {
		fputs("old\n", f);
		fclose(f);
	}
	if (symlink("target", link))
		perror("symlink");
	ret = save_in_child(link);
	f = fopen(path, "r");
	if (f) {
		if (!fgets(line, sizeof(line), f))
			line[0] = 0;
		fclose(f);
	}
	tap_ok(ret == 0 && !lstat(link, &sb) && S_ISLNK(sb.st_mode) &&
		 !strncmp(line, "libamx-gemm-blocking", 20),
		 "save through a symlink: %d, the link stays, its file is replaced",
		 ret);
	tap_ok(!temp_left(dir), "no temporary file left behind");
}

int main(void)
{
	char path[600], line[512];
	FILE *f;
	int st = 0;

	alarm(50);
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return TAP_FAIL;
	}
	snprintf(errfile, sizeof(errfile), "%s/stderr", tmpdir);
	/* nothing from the caller's cache or environment */
	snprintf(path, sizeof(path), "%s/none", tmpdir);
	setenv("XDG_CACHE_HOME", path, 1);
	unsetenv("AMX_GEMM_BLOCKS");
	amx_request();		/* AMX where there is one (the guest) */
	/*
	 * This CPU's signature, as the library writes it, from a child: the
	 * file and the environment are read once per process, so this one
	 * must not read them before the cases' children are forked.
	 */
	snprintf(path, sizeof(path), "%s/saved", tmpdir);
	fflush(stdout);
	if (fork() == 0) {
		struct amx_gemm_blocking b = { .kc = 64, .mc = 12, .nc = 32 };

		amx_gemm_set_blocking(AMX_GEMM_BACKEND_C, AMX_GEMM_OP_U8S8, &b);
		_exit(amx_gemm_blocking_save(path) ? 1 : 0);
	}
	wait(&st);
	tap_ok(WIFEXITED(st) && WEXITSTATUS(st) == 0, "blocking_save");
	f = fopen(path, "r");
	if (f && fgets(line, sizeof(line), f) && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		snprintf(cpu_line, sizeof(cpu_line), "%s", line);
	}
	if (f)
		fclose(f);
	tap_ok(!strncmp(cpu_line, "cpu ", 4), "saved file has a cpu line: %s",
		 cpu_line);
	files_and_env();
	save_targets();
	api();
	odd_blockings();
	/* the fallbacks too, where AMX is in use */
	setenv("AMX_FORCE_FALLBACK", "1", 1);
	odd_blockings();
	setenv("AMX_FORCE_FALLBACK", "c", 1);
	odd_blockings();
	unsetenv("AMX_FORCE_FALLBACK");
	nftw(tmpdir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	return tap_finish();
}
