// SPDX-License-Identifier: MIT
/*
 * amx-info: what this machine, its kernel and this process can do with
 * AMX, for humans or (--json) for scripts.
 *
 * Exit status: 0 AMX is usable (permission granted to this process),
 * 1 AMX is not usable here (the reason is printed), 2 usage error.
 */
#include <amx.h>
#include <errno.h>
#include <getopt.h>
#include <libcpuid/libcpuid.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct cpu_names {
	bool known;
	char vendor[64], brand[128], codename[64];
	int family, model, stepping;	/* as displayed: extended fields folded in */
	int cores, logical;
};

/*
 * Intel CPUs with AMX, by display model (family 6).  libcpuid's tables
 * (0.6.2 in Debian 12) predate them and name a Sapphire Rapids Xeon
 * "Xeon (Wolfdale)", so for a CPU with AMX-TILE the codename comes from
 * here or is left empty: never a name that contradicts the features.
 */

/* the library's environment variables (struct amx_info.env_ignored) */
static const struct {
	unsigned int bit;
	const char *name, *accepted;
} env_vars[] = {
	{ AMX_ENV_NUM_THREADS, "AMX_NUM_THREADS", "accepted: 0..256 (amx_set_num_threads(3))" },
	{ AMX_ENV_GEMM_BLOCKS, "AMX_GEMM_BLOCKS", "see amx_gemm_get_blocking(3)" },
	{ AMX_ENV_FORCE_FALLBACK, "AMX_FORCE_FALLBACK", "accepted: \"\", \"0\", \"1\", \"c\"" },
	{ AMX_ENV_PIN, "AMX_PIN", "accepted: \"\", \"0\", \"1\" (amx_set_pinning(3))" },
	{ AMX_ENV_PLACEMENT, "AMX_PLACEMENT",
	  "accepted: split, interleave, local, replicate (amx_set_placement(3))" },
};

static const struct {
	int model;
	const char *name;
} amx_models[] = {
	{ 0x8f, "Sapphire Rapids" }, { 0xcf, "Emerald Rapids" },
	{ 0xad, "Granite Rapids" },  { 0xae, "Granite Rapids D" },
};

/*
 * libcpuid's codename is kept only where it can be right: a CPU with
 * AVX-512 must carry the name of a generation that has it (on this
 * project's Zen hosts libcpuid 0.6.2 answers "Athlon X2 (Kuma)").
 */
static const char *const avx512_generations[] = {
	"Skylake-X", "Skylake-SP", "Skylake-W", "Xeon Scalable", "Cascade",
	"Cooper", "Ice Lake", "Tiger Lake", "Rocket Lake", "Cannon Lake",
	"Knights", "Sapphire", "Emerald", "Granite", "Zen 4", "Zen 5",
	"Raphael", "Genoa", "Bergamo", "Siena", "Phoenix", "Dragon Range",
	"Turin", "Granite Ridge", "Strix",
};

static bool codename_fits(const char *name, const struct amx_info *in)
{
	size_t i;

	if (!(in->cpu & AMX_CPU_AVX512F))
		return true;
	for (i = 0; i < sizeof(avx512_generations) / sizeof(avx512_generations[0]); i++)
		if (strstr(name, avx512_generations[i]))
			return true;
	return false;
}

static void cpu_names(struct cpu_names *n, const struct amx_info *in)
{
	struct cpu_raw_data_t raw;
	struct cpu_id_t id;
	size_t i;

	memset(n, 0, sizeof(*n));
	if (cpuid_get_raw_data(&raw) || cpu_identify(&raw, &id))
		return;
	n->known = true;
	snprintf(n->vendor, sizeof(n->vendor), "%s", id.vendor_str);
	snprintf(n->brand, sizeof(n->brand), "%s", id.brand_str);
	n->family = id.ext_family;
	n->model = id.ext_model;
	n->stepping = id.stepping;
	n->cores = id.num_cores;
	n->logical = id.num_logical_cpus;
	if (!(in->cpu & AMX_CPU_AMX_TILE)) {
		if (codename_fits(id.cpu_codename, in))
			snprintf(n->codename, sizeof(n->codename), "%s",
				 id.cpu_codename);
		return;
	}
	for (i = 0; i < sizeof(amx_models) / sizeof(amx_models[0]); i++)
		if (n->family == 6 && n->model == amx_models[i].model)
			snprintf(n->codename, sizeof(n->codename), "%s",
				 amx_models[i].name);
}

static const struct {
	unsigned int bit;
	const char *name;
} features[] = {
	{ AMX_CPU_AMX_TILE, "amx_tile" },   { AMX_CPU_AMX_INT8, "amx_int8" },
	{ AMX_CPU_AMX_BF16, "amx_bf16" },   { AMX_CPU_AMX_FP16, "amx_fp16" },
	{ AMX_CPU_AMX_COMPLEX, "amx_complex" }, { AMX_CPU_OSXSAVE, "osxsave" },
	{ AMX_CPU_XFD, "xfd" },		    { AMX_CPU_AVX512F, "avx512f" },
	{ AMX_CPU_AVX512_BF16, "avx512_bf16" }, { AMX_CPU_AVX512_VNNI, "avx512_vnni" },
};
#define NFEATURES (sizeof(features) / sizeof(features[0]))

/* Kernel lines about AMX in /proc/self: arch_status and x86_* status. */
#define MAX_PROC_LINES 8
static char proc_lines[MAX_PROC_LINES][160];
static int nproc_lines;

static void read_proc_lines(void)
{
	static const char *const files[] = { "/proc/self/arch_status", "/proc/self/status" };
	char line[160];
	size_t i;

	for (i = 0; i < 2; i++) {
		FILE *f = fopen(files[i], "r");

		if (!f)
			continue;
		while (fgets(line, sizeof(line), f) && nproc_lines < MAX_PROC_LINES) {
			if (i == 1 && strncmp(line, "x86_", 4))
				continue;
			line[strcspn(line, "\n")] = 0;
			snprintf(proc_lines[nproc_lines++], sizeof(proc_lines[0]), "%s", line);
		}
		fclose(f);
	}
}

/* @v as a JSON string literal. */
static void json_escaped(const char *v)
{
	putchar('"');
	for (; *v; v++) {
		if (*v == '"' || *v == '\\')
			printf("\\%c", *v);
		else if ((unsigned char)*v < 0x20)
			printf("\\u%04x", *v);
		else
			putchar(*v);
	}
	putchar('"');
}

static void json_str(const char *key, const char *v, bool comma)
{
	printf("  \"%s\": ", key);
	json_escaped(v);
	printf("%s\n", comma ? "," : "");
}

/* ---- GEMM blocking in force ---------------------------------------- */

/* the library's names, "?" for a value that is none (an error) */
static const char *be_name(int be)
{
	const char *n = amx_gemm_backend_name((enum amx_gemm_backend)be);

	return n ? n : "?";
}

static const char *op_name(int op)
{
	const char *n = amx_gemm_op_name((enum amx_gemm_op)op);

	return n ? n : "?";
}
static const char *const src_names[] = { "default", "file", "env", "api" };

static const char *file_status_text(int st)
{
	switch (st) {
	case 0: return "used";
	case -ENOENT: return "none found";
	case -EPROTO: return "ignored: another format version";
	case -ESTALE: return "ignored: made on another CPU";
	default: return "ignored: malformed";
	}
}

static const char *src_name(uint32_t s)
{
	return s < 4 ? src_names[s] : "?";
}

static const char *edge_name(unsigned int e)
{
	return e == AMX_GEMM_EDGE_TILES ? "tiles" : "copy";
}

static const char *cio_name(unsigned int c)
{
	return c == AMX_GEMM_CIO_INTERLEAVE ? "interleave" : "block";
}

static void print_blocking_json(void)
{
	int st;
	const char *file = amx_gemm_blocking_file(&st);

	printf("  \"gemm_blocking_file\": ");
	if (file)
		json_escaped(file);
	else
		printf("null");
	printf(",\n  \"gemm_blocking_file_status\": %d,\n", st);
	printf("  \"gemm_blocking\": [");
	for (int be = AMX_GEMM_BACKEND_AMX; be <= AMX_GEMM_BACKEND_C; be++)
		for (int op = AMX_GEMM_OP_BF16; op <= AMX_GEMM_OP_F16; op++) {
			struct amx_gemm_blocking b;

			amx_gemm_get_blocking(be, op, &b);
			printf("%s\n    {\"backend\": \"%s\", \"op\": \"%s\", "
			       "\"kc\": %u, \"mc\": %u, \"nc\": %u, "
			       "\"prefetch\": %u, \"edge\": \"%s\", "
			       "\"cio\": \"%s\", \"small\": %u, "
			       "\"source\": \"%s\"}",
			       be == 1 && op == 1 ? "" : ",", be_name(be),
			       op_name(op), b.kc, b.mc, b.nc, b.prefetch,
			       edge_name(b.edge), cio_name(b.cio), b.small,
			       src_name(b.source));
		}
	printf("\n  ],\n");
}

static void print_blocking_human(void)
{
	/* by enum amx_gemm_op - 1: bf16, s8s8, u8s8, f16 */
	int st, inuse[4] = { amx_gemm_backend(AMX_GEMM_BF16),
			     amx_gemm_backend(AMX_GEMM_S8),
			     amx_gemm_backend(AMX_GEMM_S8),
			     amx_gemm_backend(AMX_GEMM_F16) };
	const char *file = amx_gemm_blocking_file(&st);

	printf("GEMM:       backend bf16 %s, int8 %s, f16 %s; tuning file %s%s%s\n",
	       be_name(inuse[0]), be_name(inuse[1]), be_name(inuse[3]),
	       file ? file : "", file ? " " : "", file_status_text(st));
	printf("Blocking:   backend op       kc     mc     nc  prefetch  edge   cio           small  source\n");
	for (int be = AMX_GEMM_BACKEND_AMX; be <= AMX_GEMM_BACKEND_C; be++)
		for (int op = AMX_GEMM_OP_BF16; op <= AMX_GEMM_OP_F16; op++) {
			struct amx_gemm_blocking b;

			amx_gemm_get_blocking(be, op, &b);
			printf("            %-7s %-4s %6u %6u %6u  %8u  %-5s  %-10s %8u  %s%s\n",
			       be_name(be), op_name(op), b.kc, b.mc, b.nc,
			       b.prefetch, edge_name(b.edge), cio_name(b.cio),
			       b.small, src_name(b.source),
			       be == inuse[op - 1] ? " (in use)" : "");
		}
}

/* The topology, the pool's threads and the weight placement. */
struct place_info {
	struct amx_topology topo;
	struct amx_cpu_topology *cpus;
	int ncpus;			/* -errno when the read failed */
	struct amx_pool_thread *thr;
	int nthr;
	const char *placement;
};

static const char *const placement_names[] = {
	[AMX_PLACE_SPLIT] = "split", [AMX_PLACE_INTERLEAVE] = "interleave",
	[AMX_PLACE_LOCAL] = "local", [AMX_PLACE_REPLICATE] = "replicate",
};

static void read_place_info(struct place_info *pi)
{
	unsigned int p = amx_get_placement();

	memset(pi, 0, sizeof(*pi));
	pi->ncpus = amx_get_topology(&pi->topo, NULL, 0);
	if (pi->ncpus > 0) {
		pi->cpus = calloc((size_t)pi->ncpus, sizeof(*pi->cpus));
		if (pi->cpus)
			pi->ncpus = amx_get_topology(&pi->topo, pi->cpus,
						     (size_t)pi->ncpus);
		else
			pi->ncpus = -ENOMEM;
	}
	/* starts the library's pool: its threads are what is shown */
	pi->nthr = amx_get_pool_threads(NULL, 0);
	if (pi->nthr > 0) {
		pi->thr = calloc((size_t)pi->nthr, sizeof(*pi->thr));
		if (pi->thr)
			pi->nthr = amx_get_pool_threads(pi->thr, (size_t)pi->nthr);
		else
			pi->nthr = 0;
	}
	pi->placement = p < 4 ? placement_names[p] : "?";
}

/* the CPUs of node @node as "0-3,8" into @buf */
static void node_cpulist(const struct place_info *pi, int node, char *buf,
			 size_t size)
{
	size_t len = 0;

	buf[0] = 0;
	for (int i = 0; i < pi->ncpus; i++) {
		int c = pi->cpus[i].cpu, e = c;

		if (pi->cpus[i].node != node)
			continue;
		/* the list is sorted by core, not CPU: find runs by value */
		bool in_run = false;

		for (int j = 0; j < pi->ncpus; j++)
			if (pi->cpus[j].node == node && pi->cpus[j].cpu == c - 1)
				in_run = true;
		if (in_run)
			continue;
		for (bool more = true; more;) {
			more = false;
			for (int j = 0; j < pi->ncpus; j++)
				if (pi->cpus[j].node == node &&
				    pi->cpus[j].cpu == e + 1) {
					e++;
					more = true;
				}
		}
		if (len < size)
			len += (size_t)snprintf(buf + len, size - len, "%s%d",
						len ? "," : "", c);
		if (e > c && len < size)
			len += (size_t)snprintf(buf + len, size - len, "-%d", e);
	}
}

/* node numbers in order of first appearance; returns how many */
static int node_list(const struct place_info *pi, int *nodes, int max)
{
	int n = 0;

	for (int i = 0; i < pi->ncpus; i++) {
		int k = 0;

		while (k < n && nodes[k] != pi->cpus[i].node)
			k++;
		if (k == n && n < max)
			nodes[n++] = pi->cpus[i].node;
	}
	return n;
}

static void print_place_json(const struct place_info *pi)
{
	int nodes[64], nn = node_list(pi, nodes, 64);

	printf("  \"topology\": {\"cpus\": %u, \"cores\": %u, \"packages\": %u, "
	       "\"nodes\": %u, \"l2_domains\": %u, \"l3_domains\": %u, "
	       "\"numa_err\": %d, \"error\": %d,\n    \"node_cpus\": [",
	       pi->topo.ncpus, pi->topo.ncores, pi->topo.npackages,
	       pi->topo.nnodes, pi->topo.nl2, pi->topo.nl3, pi->topo.numa_err,
	       pi->ncpus < 0 ? pi->ncpus : 0);
	for (int x = 0; x < nn; x++) {
		bool first = true;

		printf("%s{\"node\": %d, \"cpus\": [", x ? ", " : "", nodes[x]);
		for (int i = 0; i < pi->ncpus; i++)
			if (pi->cpus[i].node == nodes[x]) {
				printf("%s%d", first ? "" : ", ", pi->cpus[i].cpu);
				first = false;
			}
		printf("]}");
	}
	printf("],\n    \"cpu_list\": [");
	for (int i = 0; i < pi->ncpus; i++)
		printf("%s{\"cpu\": %d, \"core\": %d, \"package\": %d, \"node\": %d, "
		       "\"l2\": %d, \"l3\": %d, \"smt\": %d}", i ? ", " : "",
		       pi->cpus[i].cpu, pi->cpus[i].core, pi->cpus[i].package,
		       pi->cpus[i].node, pi->cpus[i].l2, pi->cpus[i].l3,
		       pi->cpus[i].smt);
	printf("]},\n  \"pool_threads\": [");
	for (int i = 0; i < pi->nthr; i++)
		printf("%s{\"thread\": %d, \"cpu\": %d, \"node\": %d}",
		       i ? ", " : "", i, pi->thr[i].cpu, pi->thr[i].node);
	printf("],\n");
	json_str("placement", pi->placement, true);
}

static void print_place_human(const struct place_info *pi)
{
	int nodes[64], nn = node_list(pi, nodes, 64), pinned = 0;
	char list[512];

	if (pi->ncpus < 0) {
		printf("Topology:   unknown: %s\n", amx_strerror(pi->ncpus));
	} else {
		printf("Topology:   %u CPUs in the affinity mask: %u cores, %u package%s, "
		       "%u NUMA node%s, %u L2 and %u L3 domain%s\n",
		       pi->topo.ncpus, pi->topo.ncores, pi->topo.npackages,
		       pi->topo.npackages == 1 ? "" : "s", pi->topo.nnodes,
		       pi->topo.nnodes == 1 ? "" : "s", pi->topo.nl2,
		       pi->topo.nl3, pi->topo.nl3 == 1 ? "" : "s");
		for (int x = 0; x < nn; x++) {
			node_cpulist(pi, nodes[x], list, sizeof(list));
			printf("Node %-6d CPUs %s\n", nodes[x], list);
		}
	}
	for (int i = 0; i < pi->nthr; i++)
		pinned += pi->thr[i].cpu >= 0;
	printf("Pool:       %d thread%s, ", pi->nthr, pi->nthr == 1 ? "" : "s");
	if (!pinned) {
		printf("not pinned%s\n", pi->nthr > 1 ? " (amx_set_pinning(0), AMX_PIN=0, or no topology)" : "");
	} else {
		printf("thread 0 is the caller (not pinned), workers pinned:");
		for (int i = 1; i < pi->nthr; i++) {
			if (pi->thr[i].cpu >= 0)
				printf(" %d->cpu%d/node%d", i, pi->thr[i].cpu, pi->thr[i].node);
			else
				printf(" %d->unpinned", i);
		}
		printf("\n");
	}
	printf("Placement:  %s", pi->placement);
	if (pi->topo.nnodes <= 1)
		printf(" (one node: weights stay where they are made)\n");
	else if (pi->topo.numa_err)
		printf("; the kernel refuses NUMA placement (%s): weights stay local\n",
		       amx_strerror(pi->topo.numa_err));
	else
		printf(" over the pool's nodes (mbind works)\n");
}

static void print_json(const struct amx_info *in, const struct place_info *pi,
		       const struct cpu_names *n,
		       int request, bool asked)
{
	size_t i;
	int p;

	printf("{\n");
	json_str("libamx_version", amx_version_string(), true);
	json_str("cpu_vendor", n->known ? n->vendor : "", true);
	json_str("cpu_brand", n->known ? n->brand : "", true);
	json_str("cpu_codename", n->known ? n->codename : "", true);
	printf("  \"cpu_family\": %d,\n  \"cpu_model\": %d,\n  \"cpu_stepping\": %d,\n",
	       n->family, n->model, n->stepping);
	printf("  \"physical_cores\": %d,\n  \"logical_cpus\": %d,\n", n->cores, n->logical);
	printf("  \"cpu_features\": {");
	for (i = 0; i < NFEATURES; i++)
		printf("%s\"%s\": %s", i ? ", " : "", features[i].name,
		       in->cpu & features[i].bit ? "true" : "false");
	printf("},\n");
	printf("  \"xcr0\": %llu,\n", (unsigned long long)in->xcr0);
	printf("  \"max_palette\": %u,\n", in->max_palette);
	printf("  \"palette1\": {\"total_bytes\": %u, \"bytes_per_tile\": %u, "
	       "\"bytes_per_row\": %u, \"max_names\": %u, \"max_rows\": %u},\n",
	       in->palette1.total_bytes, in->palette1.bytes_per_tile,
	       in->palette1.bytes_per_row, in->palette1.max_names, in->palette1.max_rows);
	printf("  \"tmul_max_k\": %u,\n  \"tmul_max_n\": %u,\n", in->tmul_max_k, in->tmul_max_n);
	printf("  \"xsave_size_enabled\": %u,\n  \"xsave_size_max\": %u,\n",
	       in->xsave_size_enabled, in->xsave_size_max);
	printf("  \"xtiledata_size\": %u,\n  \"xtiledata_offset\": %u,\n",
	       in->xtiledata_size, in->xtiledata_offset);
	printf("  \"kernel_supported\": %llu,\n  \"kernel_supported_err\": %d,\n",
	       (unsigned long long)in->kernel_supported, in->kernel_supported_err);
	printf("  \"kernel_permitted\": %llu,\n", (unsigned long long)in->kernel_permitted);
	printf("  \"minsigstksz\": %lu,\n  \"sigaltstack_size\": %zu,\n", in->minsigstksz,
	       in->sigaltstack_size);
	printf("  \"requested\": %s,\n  \"status\": %d,\n", asked ? "true" : "false", in->status);
	printf("  \"alloc_sync\": %s,\n", in->alloc_sync ? "true" : "false");
	printf("  \"force_fallback\": %u,\n  \"force_fallback_ignored\": %s,\n",
	       in->force_fallback, in->force_fallback_ignored ? "true" : "false");
	printf("  \"env_ignored\": [");
	for (size_t v = 0, first = 1; v < sizeof(env_vars) / sizeof(env_vars[0]); v++)
		if (in->env_ignored & env_vars[v].bit) {
			printf("%s\"%s\"", first ? "" : ", ", env_vars[v].name);
			first = 0;
		}
	printf("],\n");
	json_str("status_text", amx_strerror(in->status), true);
	printf("  \"request_result\": %d,\n", request);
	print_blocking_json();
	print_place_json(pi);
	printf("  \"proc\": [");
	for (p = 0; p < nproc_lines; p++) {
		printf("%s", p ? ", " : "");
		json_escaped(proc_lines[p]);
	}
	printf("]\n}\n");
}

/* every variable the library ignores, with its value */
static void print_env_ignored(const struct amx_info *in)
{
	for (size_t v = 0; v < sizeof(env_vars) / sizeof(env_vars[0]); v++) {
		const char *env = getenv(env_vars[v].name);

		if (!(in->env_ignored & env_vars[v].bit) ||
		    env_vars[v].bit == AMX_ENV_FORCE_FALLBACK)
			continue;	/* that one: print_force() */
		printf("Env:        %s=\"%s\" IGNORED: %s\n", env_vars[v].name,
		       env ? env : "", env_vars[v].accepted);
	}
}

/* what AMX_FORCE_FALLBACK does to the GEMM helpers, if it is set */
static void print_force(const struct amx_info *in)
{
	static const char *const what[] = {
		[AMX_FORCE_NONE] = "no effect",
		[AMX_FORCE_NO_AMX] = "GEMM avoids AMX",
		[AMX_FORCE_C] = "GEMM uses portable C only",
	};
	const char *env = getenv("AMX_FORCE_FALLBACK");

	if (in->force_fallback_ignored)
		printf("GEMM:       AMX_FORCE_FALLBACK=\"%s\" IGNORED: not one of \"\", \"0\", \"1\", \"c\"\n",
		       env ? env : "");
	else if (env && in->force_fallback < 3)
		printf("GEMM:       AMX_FORCE_FALLBACK=\"%s\": %s\n", env,
		       what[in->force_fallback]);
}

static void print_human(const struct amx_info *in, const struct place_info *pi,
			const struct cpu_names *n,
			int request, bool asked)
{
	size_t i;
	int p;

	printf("libamx %s\n\n", amx_version_string());
	if (n->known)
		printf("CPU:        %s, %s%s%s%s, family %d model 0x%x stepping %d, "
		       "%d physical cores, %d logical\n",
		       n->vendor, n->brand, *n->codename ? " (" : "", n->codename,
		       *n->codename ? ")" : "", n->family, n->model, n->stepping,
		       n->cores, n->logical);
	else
		printf("CPU:        (libcpuid could not identify it)\n");
	printf("Features:  ");
	for (i = 0; i < NFEATURES; i++)
		if (in->cpu & features[i].bit)
			printf(" %s", features[i].name);
	printf("\nXCR0:       0x%llx (tile config %s, tile data %s)\n",
	       (unsigned long long)in->xcr0, in->xcr0 & (1ull << 17) ? "on" : "off",
	       in->xcr0 & (1ull << 18) ? "on" : "off");
	if (in->max_palette)
		printf("Palette 1:  %u tiles x %u rows x %u bytes (%u bytes total); TMUL max K %u, max N %u\n",
		       in->palette1.max_names, in->palette1.max_rows,
		       in->palette1.bytes_per_row, in->palette1.total_bytes,
		       in->tmul_max_k, in->tmul_max_n);
	else
		printf("Palette 1:  none (CPUID leaf 0x1D reports no palette)\n");
	printf("XSAVE:      %u bytes for XCR0 features, %u for all; tile data %u bytes at %u\n",
	       in->xsave_size_enabled, in->xsave_size_max, in->xtiledata_size,
	       in->xtiledata_offset);
	if (in->kernel_supported_err)
		printf("Kernel:     ARCH_GET_XCOMP_SUPP failed: %s\n",
		       amx_strerror(in->kernel_supported_err));
	else
		printf("Kernel:     supported xfeatures 0x%llx, permitted 0x%llx\n",
		       (unsigned long long)in->kernel_supported,
		       (unsigned long long)in->kernel_permitted);
	printf("Sigstack:   AT_MINSIGSTKSZ %lu, recommended sigaltstack %zu bytes\n",
	       in->minsigstksz, in->sigaltstack_size);
	for (p = 0; p < nproc_lines; p++)
		printf("Proc:       %s\n", proc_lines[p]);
	if (asked)
		printf("Permission: amx_request() = %d: %s%s\n", request, amx_strerror(request),
		       in->alloc_sync ? " (tile buffers allocated up front)" : "");
	printf("AMX:        %s\n", in->status ? amx_strerror(in->status) : "usable");
	print_force(in);
	print_env_ignored(in);
	print_blocking_human();
	print_place_human(pi);
}

static void usage(FILE *f)
{
	fprintf(f, "usage: amx-info [--json] [--no-request]\n"
		   "  --json        machine-readable output\n"
		   "  --no-request  do not ask the kernel for AMX permission\n"
		   "exit status: 0 AMX usable, 1 not usable (reason printed), 2 usage error\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "no-request", no_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ 0 },
	};
	bool json = false, ask = true;
	struct cpu_names names;
	struct amx_info info;
	struct place_info place;
	int c, request = 0;

	while ((c = getopt_long(argc, argv, "jnhV", opts, NULL)) != -1) {
		switch (c) {
		case 'j': json = true; break;
		case 'n': ask = false; break;
		case 'h': usage(stdout); return 0;
		case 'V': printf("amx-info (libamx) %s\n", amx_version_string()); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "amx-info: unexpected argument '%s'\n", argv[optind]);
		usage(stderr);
		return 2;
	}
	if (ask)
		request = amx_request();
	amx_get_info(&info);
	cpu_names(&names, &info);
	read_proc_lines();
	read_place_info(&place);
	if (json)
		print_json(&info, &place, &names, request, ask);
	else
		print_human(&info, &place, &names, request, ask);
	free(place.cpus);
	free(place.thr);
	return info.status ? 1 : 0;
}
