#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""amx-info --json parses and agrees with the library (tests/info_dump)."""
import json
import os
import subprocess
import sys

FEATURES = ["amx_tile", "amx_int8", "amx_bf16", "amx_fp16", "amx_complex",
            "osxsave", "xfd", "avx512f", "avx512_bf16", "avx512_vnni"]


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
    blk = doc.get("gemm_blocking", [])
    check(len(blk) == 9 and {(b["backend"], b["op"]) for b in blk} ==
          {(be, op) for be in ("amx", "avx512", "c") for op in ("bf16", "s8s8", "u8s8")},
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
    check(amx_edges == ["tiles"] * 3, f"AMX_GEMM_BLOCKS edge=tiles shows: {amx_edges}")
    cios = [(b["backend"], b["op"], b["cio"])
            for b in json.loads(run2.stdout)["gemm_blocking"] if b["cio"] != "block"]
    check(cios == [("amx", "bf16", "interleave"), ("amx", "s8s8", "interleave")],
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
