#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""amx-info --json parses and agrees with the library (tests/info_dump)."""
import ctypes
import json
import mmap
import os
import subprocess
import sys

FEATURES = ["amx_tile", "amx_int8", "amx_bf16", "amx_fp16", "amx_complex",
            "osxsave", "xfd", "avx512f", "avx512_bf16", "avx512_vnni"]


# Facts read here without the library, to compare amx-info against: CPUID
# and XGETBV as machine code of our own (x86-64 System V), arch_prctl(2)
# directly, /proc/cpuinfo's flags.
CPUID_CODE = bytes([
    0x53,                    # push rbx
    0x49, 0x89, 0xd0,        # mov r8, rdx        (out)
    0x89, 0xf8,              # mov eax, edi       (leaf)
    0x89, 0xf1,              # mov ecx, esi       (sub-leaf)
    0x0f, 0xa2,              # cpuid
    0x41, 0x89, 0x00,        # mov [r8], eax
    0x41, 0x89, 0x58, 0x04,  # mov [r8+4], ebx
    0x41, 0x89, 0x48, 0x08,  # mov [r8+8], ecx
    0x41, 0x89, 0x50, 0x0c,  # mov [r8+12], edx
    0x5b,                    # pop rbx
    0xc3])                   # ret
XGETBV0_CODE = bytes([
    0x31, 0xc9,              # xor ecx, ecx
    0x0f, 0x01, 0xd0,        # xgetbv
    0x48, 0xc1, 0xe2, 0x20,  # shl rdx, 32
    0x48, 0x09, 0xd0,        # or rax, rdx
    0xc3])                   # ret
ARCH_GET_XCOMP_SUPP = 0x1021
SYS_ARCH_PRCTL = 158
AT_MINSIGSTKSZ = 51
_code_pages = []


def machine_code(code, restype, *argtypes):
    page = mmap.mmap(-1, mmap.PAGESIZE,
                     prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
    page.write(code)
    _code_pages.append(page)
    addr = ctypes.addressof(ctypes.c_char.from_buffer(page))
    return ctypes.CFUNCTYPE(restype, *argtypes)(addr)


def independent_facts():
    """CPUID leaves, XCR0, ARCH_GET_XCOMP_SUPP, AT_MINSIGSTKSZ, cpuinfo flags."""
    cpuid_fn = machine_code(CPUID_CODE, None, ctypes.c_uint32, ctypes.c_uint32,
                            ctypes.POINTER(ctypes.c_uint32 * 4))

    def cpuid(leaf, sub=0):
        out = (ctypes.c_uint32 * 4)()
        cpuid_fn(leaf, sub, ctypes.pointer(out))
        return tuple(out)

    f = {"cpuid": cpuid}
    osxsave = bool(cpuid(1)[2] & (1 << 27))
    f["xcr0"] = machine_code(XGETBV0_CODE, ctypes.c_uint64)() if osxsave else 0
    libc = ctypes.CDLL(None, use_errno=True)
    mask = ctypes.c_uint64(0)
    ret = libc.syscall(ctypes.c_long(SYS_ARCH_PRCTL), ctypes.c_long(ARCH_GET_XCOMP_SUPP),
                       ctypes.byref(mask))
    f["kernel_supported"] = mask.value if ret == 0 else 0
    libc.getauxval.restype = ctypes.c_ulong
    f["minsigstksz"] = libc.getauxval(ctypes.c_ulong(AT_MINSIGSTKSZ))
    f["flags"] = set()
    with open("/proc/cpuinfo") as fh:
        for line in fh:
            if line.startswith("flags"):
                f["flags"] = set(line.split(":", 1)[1].split())
                break
    return f


def check_independent(doc, check):
    """amx-info against what this script read itself."""
    f = independent_facts()
    cpuid = f["cpuid"]
    check(doc["xcr0"] == f["xcr0"], f"xcr0 {doc['xcr0']:#x} == XGETBV(0) here {f['xcr0']:#x}")
    check(doc["kernel_supported"] == f["kernel_supported"],
          f"kernel_supported {doc['kernel_supported']:#x} == ARCH_GET_XCOMP_SUPP here "
          f"{f['kernel_supported']:#x}")
    check(doc["minsigstksz"] == f["minsigstksz"],
          f"minsigstksz {doc['minsigstksz']} == getauxval(AT_MINSIGSTKSZ) here "
          f"{f['minsigstksz']}")
    eax, ebx, ecx, _ = cpuid(0xd, 0)
    check((doc["xsave_size_enabled"], doc["xsave_size_max"]) == (ebx, ecx),
          f"XSAVE sizes {doc['xsave_size_enabled']}/{doc['xsave_size_max']} == CPUID.0xD.0 "
          f"{ebx}/{ecx}")
    eax, ebx, _, _ = cpuid(0xd, 18)
    check((doc["xtiledata_size"], doc["xtiledata_offset"]) == (eax, ebx),
          f"XTILEDATA size/offset {doc['xtiledata_size']}/{doc['xtiledata_offset']} == "
          f"CPUID.0xD.18 {eax}/{ebx}")
    leaf7 = cpuid(7, 0)
    bits = {"amx_tile": leaf7[3] >> 24 & 1, "amx_int8": leaf7[3] >> 25 & 1,
            "amx_bf16": leaf7[3] >> 22 & 1, "avx512f": leaf7[1] >> 16 & 1,
            "avx512_vnni": leaf7[2] >> 11 & 1}
    if leaf7[0] >= 1:
        leaf71 = cpuid(7, 1)
        bits["amx_fp16"] = leaf71[0] >> 21 & 1
        bits["avx512_bf16"] = leaf71[0] >> 5 & 1
        bits["amx_complex"] = leaf71[3] >> 8 & 1
    got = {k: int(doc["cpu_features"][k]) for k in bits}
    check(got == bits, f"cpu_features == CPUID.7 bits here {bits}")
    # /proc/cpuinfo: what the kernel shows (it may clear a feature it does
    # not support, never add one): every flag it shows, amx-info reports
    shown = {k for k in ("amx_tile", "amx_int8", "amx_bf16", "amx_fp16", "avx512f",
                         "avx512_bf16", "avx512_vnni") if k in f["flags"]}
    check(all(doc["cpu_features"][k] for k in shown),
          f"every /proc/cpuinfo flag shown is reported: {sorted(shown)}")
    if doc["cpu_features"]["amx_tile"]:
        eax, ebx, ecx, _ = cpuid(0x1d, 1)
        want = {"total_bytes": eax & 0xffff, "bytes_per_tile": eax >> 16,
                "bytes_per_row": ebx & 0xffff, "max_names": ebx >> 16,
                "max_rows": ecx & 0xffff}
        check(doc["palette1"] == want, f"palette1 == CPUID.0x1D.1 here {want}")
        _, ebx, _, _ = cpuid(0x1e, 0)
        check((doc["tmul_max_k"], doc["tmul_max_n"]) == (ebx & 0xff, ebx >> 8 & 0xffff),
              f"TMUL limits {doc['tmul_max_k']}/{doc['tmul_max_n']} == CPUID.0x1E "
              f"{ebx & 0xff}/{ebx >> 8 & 0xffff}")


def check_env_rule(amx_info, info_dump, check):
    """One rule for the library's variables: a value that does not parse or
    is out of range is ignored, with exactly one stderr line naming it, and
    amx_get_info()/amx-info report it; never wrapped or clamped."""
    def dump(**env):
        full = {k: v for k, v in os.environ.items() if k != "AMX_NUM_THREADS"}
        run = subprocess.run([info_dump], capture_output=True, text=True,
                             env=dict(full, **env))
        out = dict(line.split("=", 1) for line in run.stdout.split())
        return {k: int(v) for k, v in out.items()}, run.stderr

    default = dump()[0]["threads"]

    for value in ["abc", "-1", "2x", " 2", "2 ", "+2", "257", "1000000", "99999999999",
                  "18446744073709551617"]:
        got, err = dump(AMX_NUM_THREADS=value)
        lines = [ln for ln in err.splitlines() if ln.startswith("libamx: AMX_NUM_THREADS=")]
        check(got["threads"] == default and got["env_ignored"] & 1 and len(lines) == 1 and
              "ignored" in lines[0],
              f"AMX_NUM_THREADS={value!r} ignored: {got['threads']} threads (default "
              f"{default}), one line: {lines}")
    for value, want in [("1", 1), ("3", 3), ("0", default), ("256", 256)]:
        got, err = dump(AMX_NUM_THREADS=value)
        check(got["threads"] == want and not got["env_ignored"] and "libamx:" not in err,
              f"AMX_NUM_THREADS={value!r}: {got['threads']} threads, nothing ignored")
    env = dict(os.environ, AMX_NUM_THREADS="-1", AMX_GEMM_BLOCKS="amx:bf16:kc=0",
               AMX_FORCE_FALLBACK="yes")
    js = json.loads(subprocess.run([amx_info, "--json", "--no-request"], env=env,
                                   capture_output=True, text=True).stdout)
    human = subprocess.run([amx_info, "--no-request"], env=env, capture_output=True,
                           text=True).stdout
    check(js["env_ignored"] == ["AMX_NUM_THREADS", "AMX_GEMM_BLOCKS", "AMX_FORCE_FALLBACK"] and
          'AMX_NUM_THREADS="-1" IGNORED' in human and
          'AMX_GEMM_BLOCKS="amx:bf16:kc=0" IGNORED' in human,
          f"amx-info shows every ignored variable: {js['env_ignored']}")
    js = json.loads(subprocess.run([amx_info, "--json", "--no-request"], capture_output=True,
                                   text=True, env=dict(os.environ, AMX_NUM_THREADS="2",
                                                       AMX_GEMM_BLOCKS="amx:bf16:kc=64")).stdout)
    check(js["env_ignored"] == [], "valid values: env_ignored is empty")


def check_topology(doc, amx_info, check):
    """topology and pool against sysfs and the affinity mask, read here."""
    mask = os.sched_getaffinity(0)
    online = {c for c in mask if os.path.exists(f"/sys/devices/system/cpu/cpu{c}/topology")}
    topo = doc["topology"]
    check(topo["cpus"] == len(online) and len(topo["cpu_list"]) == len(online) and
          {c["cpu"] for c in topo["cpu_list"]} == online,
          f"topology: the {len(online)} online CPUs of the affinity mask")
    node_of = {}
    for d in (os.listdir("/sys/devices/system/node")
              if os.path.isdir("/sys/devices/system/node") else []):
        if d.startswith("node") and d[4:].isdigit():
            with open(f"/sys/devices/system/node/{d}/cpulist") as f:
                for part in filter(None, f.read().strip().split(",")):
                    lo, _, hi = part.partition("-")
                    for c in range(int(lo), int(hi or lo) + 1):
                        node_of[c] = int(d[4:])
    want_nodes = {node_of.get(c, 0) for c in online}
    check(topo["nodes"] == len(want_nodes) and
          all(c["node"] == node_of.get(c["cpu"], 0) for c in topo["cpu_list"]),
          f"topology: nodes {sorted(want_nodes)} as sysfs says")
    cores = set()
    for c in online:
        with open(f"/sys/devices/system/cpu/cpu{c}/topology/thread_siblings_list") as f:
            first = f.read().strip().split(",")[0].split("-")[0]
        cores.add(int(first))
    check(topo["cores"] == len(cores), f"topology: {len(cores)} physical cores")
    thr = doc["pool_threads"]
    check(len(thr) == len(cores) and thr[0]["cpu"] == -1 and
          all(t["cpu"] in online for t in thr[1:]),
          "pool: one thread per core, workers pinned to CPUs of the mask")
    check(doc["placement"] == "split", "placement: split by default")
    env = dict(os.environ, AMX_PIN="0", AMX_PLACEMENT="replicate")
    js = json.loads(subprocess.run([amx_info, "--json", "--no-request"], env=env,
                                   capture_output=True, text=True).stdout)
    check(all(t["cpu"] == -1 for t in js["pool_threads"]) and
          js["placement"] == "replicate", "AMX_PIN=0 and AMX_PLACEMENT=replicate shown")
    env = dict(os.environ, AMX_PIN="2", AMX_PLACEMENT="near")
    run = subprocess.run([amx_info, "--json", "--no-request"], env=env,
                         capture_output=True, text=True)
    js = json.loads(run.stdout)
    check(js["env_ignored"] == ["AMX_PIN", "AMX_PLACEMENT"] and
          "AMX_PIN='2' ignored" in run.stderr and js["placement"] == "split",
          "AMX_PIN=2 and AMX_PLACEMENT=near: ignored, reported, defaults kept")


def main():
    amx_info, info_dump = sys.argv[1], sys.argv[2]
    results = []

    def check(cond, what):
        results.append(cond)
        print(f"{'' if cond else 'not '}ok {len(results)} - {what}")

    print("TAP version 13")
    run = subprocess.run([amx_info, "--json", "--no-request"], capture_output=True, text=True)
    lib = dict(line.split("=", 1) for line in
               subprocess.run([info_dump], capture_output=True, text=True,
                              check=True).stdout.split())
    lib = {k: int(v) for k, v in lib.items()}
    try:
        doc = json.loads(run.stdout)
        check(True, "amx-info --json is valid JSON")
    except json.JSONDecodeError as err:
        check(False, f"amx-info --json is valid JSON ({err})")
        print(f"1..{len(results)}")
        return 1
    check(run.returncode == (0 if doc["status"] == 0 else 1),
          f"exit status {run.returncode} matches status {doc['status']}")
    cpu = sum(1 << i for i, name in enumerate(FEATURES) if doc["cpu_features"][name])
    check(cpu == lib["cpu"], f"cpu feature bits {cpu:#x} == library {lib['cpu']:#x}")
    for key in ["xcr0", "max_palette", "tmul_max_k", "tmul_max_n", "xsave_size_enabled",
                "xsave_size_max", "xtiledata_size", "kernel_supported", "minsigstksz",
                "sigaltstack_size", "status"]:
        check(doc[key] == lib[key], f"{key}: {doc[key]} == {lib[key]}")
    for key in ["bytes_per_row", "max_names", "max_rows"]:
        check(doc["palette1"][key] == lib[key], f"palette1.{key} == {lib[key]}")
    check_independent(doc, check)
    check(isinstance(doc["cpu_vendor"], str) and doc["physical_cores"] >= 0,
          f"libcpuid: vendor '{doc['cpu_vendor']}', {doc['physical_cores']} cores")
    cpuinfo = {}
    with open("/proc/cpuinfo") as f:
        for line in f:
            if not line.strip():
                break
            k, _, v = line.partition(":")
            cpuinfo[k.strip()] = v.strip()
    want = (int(cpuinfo.get("cpu family", -1)), int(cpuinfo.get("model", -1)),
            int(cpuinfo.get("stepping", -1)))
    got = (doc["cpu_family"], doc["cpu_model"], doc["cpu_stepping"])
    check(got == want, f"family/model/stepping {got} == /proc/cpuinfo {want}")
    amx_names = {"Sapphire Rapids", "Emerald Rapids", "Granite Rapids", "Granite Rapids D"}
    check(not doc["cpu_features"]["amx_tile"] or doc["cpu_codename"] in amx_names | {""},
          f"codename '{doc['cpu_codename']}' consistent with the AMX features")
    check(not doc["requested"], "--no-request did not ask for permission")
    check_topology(doc, amx_info, check)
    check(int(doc["alloc_sync"]) == lib["alloc_sync"], "alloc_sync agrees")
    check(doc["force_fallback"] == lib["force_fallback"] and
          int(doc["force_fallback_ignored"]) == lib["force_fallback_ignored"],
          "force_fallback agrees")
    # an undocumented AMX_FORCE_FALLBACK value is ignored, and amx-info says so
    for value, mode, ignored in [("c", 2, False), ("1", 1, False), ("0", 0, False),
                                 ("yes", 0, True), ("C", 0, True)]:
        env = dict(os.environ, AMX_FORCE_FALLBACK=value)
        js = json.loads(subprocess.run([amx_info, "--json", "--no-request"], env=env,
                                       capture_output=True, text=True).stdout)
        human = subprocess.run([amx_info, "--no-request"], env=env,
                               capture_output=True, text=True).stdout
        check(js["force_fallback"] == mode and js["force_fallback_ignored"] == ignored and
              ("IGNORED" in human) == ignored,
              f"AMX_FORCE_FALLBACK={value!r}: mode {mode}, ignored {ignored}")
    check_env_rule(amx_info, info_dump, check)
    blk = doc.get("gemm_blocking", [])
    check(len(blk) == 12 and {(b["backend"], b["op"]) for b in blk} ==
          {(be, op) for be in ("amx", "avx512", "c") for op in ("bf16", "s8s8", "u8s8", "f16")},
          "gemm_blocking: every backend and op")
    check(all(b["kc"] > 0 and b["mc"] > 0 and b["nc"] > 0 and
              b["source"] in ("default", "file", "env", "api") and
              b["edge"] in ("copy", "tiles") and
              b["cio"] in ("block", "interleave") and
              isinstance(b["small"], int) and
              (b["small"] == 0 or b["backend"] == "amx") for b in blk),
          "gemm_blocking: sizes, edges, C schedules, small (amx only) and sources")
    env = dict(os.environ, AMX_GEMM_BLOCKS="c:bf16:kc=64,mc=24;amx:*:edge=tiles;"
               "amx:u8s8:cio=block")
    run2 = subprocess.run([amx_info, "--json", "--no-request"], capture_output=True,
                          text=True, env=env)
    c_bf16 = [b for b in json.loads(run2.stdout)["gemm_blocking"]
              if b["backend"] == "c" and b["op"] == "bf16"]
    check(c_bf16 and c_bf16[0]["kc"] == 64 and c_bf16[0]["mc"] == 24 and
          c_bf16[0]["source"] == "env", "AMX_GEMM_BLOCKS shows as source env")
    amx_edges = [b["edge"] for b in json.loads(run2.stdout)["gemm_blocking"]
                 if b["backend"] == "amx"]
    check(amx_edges == ["tiles"] * 4, f"AMX_GEMM_BLOCKS edge=tiles shows: {amx_edges}")
    cios = [(b["backend"], b["op"], b["cio"])
            for b in json.loads(run2.stdout)["gemm_blocking"] if b["cio"] != "block"]
    check(cios == [("amx", "bf16", "interleave"), ("amx", "s8s8", "interleave"),
                  ("amx", "f16", "interleave")],
          f"AMX_GEMM_BLOCKS cio=block shows for that slot only, the other AMX "
          f"slots keep the default, interleave: {cios}")
    env3 = dict(os.environ, AMX_GEMM_BLOCKS="amx:s8s8:small=4096")
    run3 = subprocess.run([amx_info, "--json", "--no-request"], capture_output=True,
                          text=True, env=env3)
    smalls = {(b["backend"], b["op"]): b["small"]
              for b in json.loads(run3.stdout)["gemm_blocking"]}
    check(smalls[("amx", "s8s8")] == 4096 and smalls[("amx", "bf16")] > 0 and
          smalls[("avx512", "s8s8")] == 0,
          f"AMX_GEMM_BLOCKS small=4096 shows for that slot: {smalls}")
    bad = subprocess.run([amx_info, "--bogus"], capture_output=True, text=True)
    check(bad.returncode == 2 and "usage" in bad.stderr, "unknown option: exit 2 with usage")
    print(f"1..{len(results)}")
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
