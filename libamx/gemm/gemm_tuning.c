// SPDX-License-Identifier: MIT
/*
 * The tuning file and AMX_GEMM_BLOCKS as text: the file's format (read
 * and written), where it lives, the variable's syntax.  The table they
 * feed, and the order in which its sources apply, is gemm_blocks.c's.
 *
 * The file: "libamx-gemm-blocking 4", "cpu <key>" (the CPU it was made
 * on), then one line per backend and op that is not the default.  It is
 * searched at $XDG_CACHE_HOME/libamx/gemm-blocking (or
 * ~/.cache/libamx/...), then /etc/libamx/gemm-blocking.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gemm.h"

#define BLOCKING_MAGIC	"libamx-gemm-blocking"
#define BLOCKING_VERSION 4
#define BLOCKING_NAME	"gemm-blocking"
#define BLOCKING_SYSTEM	"/etc/libamx/" BLOCKING_NAME

const char *const gemm_op_names[GEMM_NOPS] = { "bf16", "s8s8", "u8s8",
						"f16" };

/* "GenuineIntel 6.143.8 l1d=49152 l2=2097152 l3=110100480" */
static void cpu_key(char *buf, size_t len)
{
	const struct amx__cpu *c = amx__cpu();

	snprintf(buf, len, "%s %u.%u.%u l1d=%ld l2=%ld l3=%ld", c->vendor,
		 c->family, c->model, c->stepping, gemm_cache_size(1),
		 gemm_cache_size(2), gemm_cache_size(3));
}

static int backend_index(const char *s, size_t n)
{
	for (int b = 0; b < GEMM_NBACKENDS; b++) {
		const char *name = gemm_backend_by_id(b + 1)->name;

		if (strlen(name) == n && !strncmp(s, name, n))
			return b;
	}
	return -1;
}

static int op_index(const char *s, size_t n)
{
	for (int op = 0; op < GEMM_NOPS; op++)
		if (strlen(gemm_op_names[op]) == n && !strncmp(s, gemm_op_names[op], n))
			return op;
	return -1;
}

static int parse_num(const char *s, size_t *v)
{
	char *end;
	unsigned long long x;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	x = strtoull(s, &end, 10);
	if (errno || *end || x > (1ull << 30))
		return -EINVAL;
	*v = (size_t)x;
	return 0;
}

static const char *const edge_names[] = { "copy", "tiles" };
static const char *const cio_names[] = { "block", "interleave" };

static int name_index(const char *const *names, int max, const char *s)
{
	for (int i = 0; i <= max; i++)
		if (!strcmp(s, names[i]))
			return i;
	return -1;
}

/*
 * The file: "libamx-gemm-blocking 4", "cpu <key>", then one line per
 * backend and op: "<backend> <op> <kc> <mc> <nc> <pf> <edge> <cio>
 * <small>" (edge copy or tiles, cio block or interleave, small in flop).
 * Older versions are read too: 3 has no small field (the built-in one
 * stays), 2 neither small nor cio (block), 1 nor edge (copy).
 * '#' lines and blank lines are skipped.  0, or -EINVAL (malformed),
 * -EPROTO (another version), -ESTALE (made on another CPU); nothing is
 * applied unless 0.
 */
static int read_file(FILE *f, struct gemm_blocks_slot out[][GEMM_NOPS])
{
	char line[512], want[256];
	int n = 0, have_cpu = 0, ver;
	struct gemm_blocks_slot tmp[GEMM_NBACKENDS][GEMM_NOPS];

	memcpy(tmp, out, sizeof(tmp));
	cpu_key(want, sizeof(want));
	while (fgets(line, sizeof(line), f)) {
		char be[16], op[16], edge[16] = "copy", cio[16] = "block";
		char f7[16], f8[16], extra[2];
		size_t len = strlen(line);
		unsigned long kc, mc, nc, pf, small;
		int b, o, e, ci;

		if (len && line[len - 1] != '\n' && !feof(f))
			return -EINVAL;		/* line too long */
		line[strcspn(line, "\n")] = 0;
		if (n++ == 0) {
			if (sscanf(line, BLOCKING_MAGIC " %d %1s", &ver, extra) != 1)
				return -EINVAL;
			if (ver < 1 || ver > BLOCKING_VERSION)
				return -EPROTO;
			continue;
		}
		if (!line[0] || line[0] == '#')
			continue;
		if (!have_cpu) {
			if (strncmp(line, "cpu ", 4))
				return -EINVAL;
			if (strcmp(line + 4, want))
				return -ESTALE;
			have_cpu = 1;
			continue;
		}
		/* version v has 5 + v fields (edge from 2, cio 3, small 4) */
		if (sscanf(line, "%15s %15s %lu %lu %lu %lu %15s %15s %lu %1s",
			   be, op, &kc, &mc, &nc, &pf, f7, f8, &small,
			   extra) != 5 + ver)
			return -EINVAL;
		if (ver >= 2)
			snprintf(edge, sizeof(edge), "%s", f7);
		if (ver >= 3)
			snprintf(cio, sizeof(cio), "%s", f8);
		if (strchr(line, '-'))
			return -EINVAL;
		b = backend_index(be, strlen(be));
		o = op_index(op, strlen(op));
		e = name_index(edge_names, GEMM_EDGE_MAX, edge);
		ci = name_index(cio_names, GEMM_CIO_MAX, cio);
		if (b < 0 || o < 0 || e < 0 || ci < 0)
			return -EINVAL;
		if (ver < 4)
			small = tmp[b][o].bs.small;
		tmp[b][o].bs = (struct gemm_blocks){ .kc = kc, .mc = mc,
						     .nc = nc, .pf = pf,
						     .edge = (size_t)e,
						     .cio = (size_t)ci,
						     .small = small };
		if (gemm_blocks_fix(gemm_backend_by_id(b + 1), o, &tmp[b][o].bs))
			return -EINVAL;
		tmp[b][o].src = GEMM_SRC_FILE;
	}
	if (!have_cpu || ferror(f))
		return -EINVAL;
	memcpy(out, tmp, sizeof(tmp));
	return 0;
}

/* the user's file: $XDG_CACHE_HOME/libamx/..., else ~/.cache/libamx/... */
int gemm_tuning_user_path(char *buf, size_t len, int dir_only)
{
	const char *x = getenv("XDG_CACHE_HOME"), *h = getenv("HOME");
	int n;

	if (x && x[0] == '/')
		n = snprintf(buf, len, "%s/libamx%s%s", x, dir_only ? "" : "/",
			     dir_only ? "" : BLOCKING_NAME);
	else if (h && h[0] == '/')
		n = snprintf(buf, len, "%s/.cache/libamx%s%s", h,
			     dir_only ? "" : "/", dir_only ? "" : BLOCKING_NAME);
	else
		return -ENOENT;
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/*
 * The tuning file at @path for reading, or NULL with *@status set: only a
 * regular file of at most 64 KiB (a real one is under 1 KiB) is read, so
 * that a FIFO, a device or a huge file at that path cannot hold up or
 * slow down the first GEMM.  It is opened without blocking (opening a
 * FIFO for reading waits for a writer otherwise).  NULL with *@status
 * left alone when there is nothing there.
 */
static FILE *open_file(const char *path, int *status)
{
	struct stat st;
	FILE *f;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size > 65536 ||
	    fcntl(fd, F_SETFL, 0) || !(f = fdopen(fd, "r"))) {
		*status = -EINVAL;
		close(fd);
		return NULL;
	}
	return f;
}

int gemm_tuning_load(struct gemm_blocks_slot out[][GEMM_NOPS], char *used,
		     size_t len)
{
	int status = -ENOENT;
	char path[PATH_MAX];
	const char *paths[2] = { NULL, BLOCKING_SYSTEM };

	if (!gemm_tuning_user_path(path, sizeof(path), 0))
		paths[0] = path;
	for (int i = 0; i < 2; i++) {
		FILE *f;
		int ret;

		if (!paths[i])
			continue;
		f = open_file(paths[i], &status);
		if (!f) {
			if (status == -EINVAL)
				snprintf(used, len, "%s", paths[i]);
			continue;
		}
		ret = read_file(f, out);
		fclose(f);
		snprintf(used, len, "%s", paths[i]);
		status = ret;
		if (!ret)
			break;
	}
	return status;
}

/*
 * AMX_GEMM_BLOCKS="entry[;entry...]", entry "backend:op:field=value[,...]",
 * backend amx|avx512|c|*, op bf16|s8s8|u8s8|*, field
 * kc|mc|nc|pf|small=<number>, edge=copy|tiles or cio=block|interleave.
 */
int gemm_tuning_parse_env(const char *env,
			  struct gemm_blocks_slot out[][GEMM_NOPS],
			  const char **why)
{
	struct gemm_blocks_slot tmp[GEMM_NBACKENDS][GEMM_NOPS];
	char buf[1024], *save = NULL, *ent;

	if (strlen(env) >= sizeof(buf)) {
		*why = "too long";
		return -EINVAL;
	}
	memcpy(tmp, out, sizeof(tmp));
	snprintf(buf, sizeof(buf), "%s", env);
	for (ent = strtok_r(buf, "; \t", &save); ent;
	     ent = strtok_r(NULL, "; \t", &save)) {
		char *c1 = strchr(ent, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		char *fsave = NULL, *fld;
		struct gemm_blocks set = { 0 };
		int given[7] = { 0 }, b0, o0;

		if (!c1 || !c2) {
			*why = "an entry is not backend:op:field=value,...";
			return -EINVAL;
		}
		if (c1 - ent == 1 && ent[0] == '*')
			b0 = -1;
		else if ((b0 = backend_index(ent, c1 - ent)) < 0) {
			*why = "unknown backend (amx, avx512, c or *)";
			return -EINVAL;
		}
		if (c2 - c1 == 2 && c1[1] == '*')
			o0 = -1;
		else if ((o0 = op_index(c1 + 1, c2 - c1 - 1)) < 0) {
			*why = "unknown operation (bf16, s8s8, u8s8 or *)";
			return -EINVAL;
		}
		for (fld = strtok_r(c2 + 1, ",", &fsave); fld;
		     fld = strtok_r(NULL, ",", &fsave)) {
			static const char *const names[] = { "kc", "mc", "nc", "pf" };
			size_t *dst[] = { &set.kc, &set.mc, &set.nc, &set.pf };
			int f, e;

			if (!strncmp(fld, "edge=", 5)) {
				e = name_index(edge_names, GEMM_EDGE_MAX,
					       fld + 5);
				if (e < 0) {
					*why = "edge is not copy or tiles";
					return -EINVAL;
				}
				set.edge = (size_t)e;
				given[4] = 1;
				continue;
			}
			if (!strncmp(fld, "small=", 6)) {
				if (parse_num(fld + 6, &set.small)) {
					*why = "small is not a number up to 2^30";
					return -EINVAL;
				}
				given[6] = 1;
				continue;
			}
			if (!strncmp(fld, "cio=", 4)) {
				e = name_index(cio_names, GEMM_CIO_MAX, fld + 4);
				if (e < 0) {
					*why = "cio is not block or interleave";
					return -EINVAL;
				}
				set.cio = (size_t)e;
				given[5] = 1;
				continue;
			}
			for (f = 0; f < 4; f++)
				if (!strncmp(fld, names[f], 2) && fld[2] == '=')
					break;
			if (f == 4 || parse_num(fld + 3, dst[f])) {
				*why = "a field is not kc|mc|nc|pf|small=<number>, edge=copy|tiles or cio=block|interleave";
				return -EINVAL;
			}
			given[f] = 1;
		}
		if (!given[0] && !given[1] && !given[2] && !given[3] &&
		    !given[4] && !given[5] && !given[6]) {
			*why = "an entry sets no field";
			return -EINVAL;
		}
		for (int b = 0; b < GEMM_NBACKENDS; b++)
			for (int op = 0; op < GEMM_NOPS; op++) {
				struct gemm_blocks bs = tmp[b][op].bs;

				if ((b0 >= 0 && b != b0) || (o0 >= 0 && op != o0))
					continue;
				if (given[0])
					bs.kc = set.kc;
				if (given[1])
					bs.mc = set.mc;
				if (given[2])
					bs.nc = set.nc;
				if (given[3])
					bs.pf = set.pf;
				if (given[4])
					bs.edge = set.edge;
				if (given[5])
					bs.cio = set.cio;
				if (given[6])
					bs.small = set.small;
				if (gemm_blocks_fix(gemm_backend_by_id(b + 1), op,
						    &bs)) {
					*why = "a value is out of range";
					return -EINVAL;
				}
				tmp[b][op].bs = bs;
				tmp[b][op].src = GEMM_SRC_ENV;
			}
	}
	memcpy(out, tmp, sizeof(tmp));
	return 0;
}

static int mkdir_p(char *dir)
{
	for (char *p = dir + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		if (mkdir(dir, 0755) && errno != EEXIST) {
			*p = '/';
			return -errno;
		}
		*p = '/';
	}
	if (mkdir(dir, 0755) && errno != EEXIST)
		return -errno;
	return 0;
}

/* all of @len bytes to @fd: 0 or -errno (a short write of a full disk is -ENOSPC) */
static int write_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -ENOSPC;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/* the tuning file's text for @tab into @buf: its length, or -EOVERFLOW */
static int blocking_text(const struct gemm_blocks_slot tab[][GEMM_NOPS],
			 char *buf, size_t size)
{
	char key[256];
	size_t len;
	int n;

	cpu_key(key, sizeof(key));
	n = snprintf(buf, size, BLOCKING_MAGIC " %d\ncpu %s\n"
		     "# backend op kc mc nc prefetch edge cio small (see amx_gemm_get_blocking(3))\n",
		     BLOCKING_VERSION, key);
	if (n < 0 || (size_t)n >= size)
		return -EOVERFLOW;
	len = (size_t)n;
	for (int b = 0; b < GEMM_NBACKENDS; b++)
		for (int op = 0; op < GEMM_NOPS; op++) {
			const struct gemm_blocks *bs = &tab[b][op].bs;

			if (tab[b][op].src == GEMM_SRC_DEFAULT)
				continue;	/* keep following the library */
			n = snprintf(buf + len, size - len,
				     "%s %s %zu %zu %zu %zu %s %s %zu\n",
				     gemm_backend_by_id(b + 1)->name,
				     gemm_op_names[op], bs->kc, bs->mc, bs->nc,
				     bs->pf, edge_names[bs->edge],
				     cio_names[bs->cio], bs->small);
			if (n < 0 || (size_t)n >= size - len)
				return -EOVERFLOW;
			len += (size_t)n;
		}
	return (int)len;
}

/* @len bytes of @text into the existing non-regular file @path */
static int save_in_place(const char *path, const char *text, size_t len)
{
	/* no reader on a FIFO: -ENXIO, not a process blocked */
	int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC | O_NONBLOCK);
	int ret;

	if (fd < 0)
		return -errno;
	ret = fcntl(fd, F_SETFL, 0) ? -errno : 0;
	if (!ret)
		ret = write_all(fd, text, len);
	if (close(fd) && !ret)
		ret = -errno;
	return ret;
}

/*
 * A regular file at @path, or none, is replaced atomically: the text goes
 * to PATH.PID beside the file (beside the one a symlink names, so the link
 * stays), is fsync()ed, then renamed over it, so a reader sees the old file
 * or the new one.  Anything else there (a device, a FIFO, /dev/stdout) is
 * written in place: a rename would replace the device node itself.  Every
 * write, fsync and close is checked.
 */
int gemm_tuning_save(const char *path,
		     const struct gemm_blocks_slot tab[][GEMM_NOPS])
{
	char def[PATH_MAX], real[PATH_MAX], tmp[PATH_MAX + 16], text[4096];
	struct stat st;
	int len, ret, fd;

	if (!path) {
		ret = gemm_tuning_user_path(def, sizeof(def), 1);
		if (ret)
			return ret;
		ret = mkdir_p(def);
		if (ret)
			return ret;
		strncat(def, "/" BLOCKING_NAME, sizeof(def) - strlen(def) - 1);
		path = def;
	}
	len = blocking_text(tab, text, sizeof(text));
	if (len < 0)
		return len;
	if (stat(path, &st) == 0) {
		if (S_ISDIR(st.st_mode))
			return -EISDIR;
		if (!S_ISREG(st.st_mode))
			return save_in_place(path, text, (size_t)len);
	} else if (errno != ENOENT) {
		return -errno;
	}
	if (realpath(path, real))
		path = real;	/* an existing file: the one a link names */
	if (snprintf(tmp, sizeof(tmp), "%s.%d", path, (int)getpid()) >=
	    (int)sizeof(tmp))
		return -ENAMETOOLONG;
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	ret = write_all(fd, text, (size_t)len);
	if (!ret && fsync(fd))
		ret = -errno;
	if (close(fd) && !ret)
		ret = -errno;
	if (!ret && rename(tmp, path))
		ret = -errno;
	if (ret)
		unlink(tmp);
	return ret;
}
