#!/usr/bin/env python3
"""Cross-checks ops/<family>/signatures.txt against `cuobjdump -elf` of the built fatbins.

Usage: cuobjdump_check.py FATBIN SIGNATURES [FATBIN SIGNATURES ...]
For every ELF in the fatbin, the kernels cuobjdump lists (its .nv.info.<kernel> sections) must
be those signatures.txt says ship for that arch; for the arch signatures.txt was written for,
each kernel's KPARAM_INFO ordinals, offsets and sizes must equal the committed ones.
Exits 1 on any difference; prints one line per kernel checked.
"""
import re
import subprocess
import sys


def parse_signatures(path):
    arch, kernels = None, {}
    for line in open(path):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        fields = line.split()
        if fields[0] == "hip-arch":
            break  # the HIP section: AMD code objects, not in the fatbin
        if fields[0] == "arch":
            arch = fields[1]
            continue
        archs = [] if fields[1] == "-" else fields[1].split(",")
        params = []
        if fields[2:] != ["-"]:
            for p in fields[2:]:
                _, off, size = p.split(":")
                params.append((int(off), int(size)))
        kernels[fields[0]] = (archs, params)
    return arch, kernels


def parse_cuobjdump(text):
    """arch -> kernel -> [(ordinal, offset, size)] from `cuobjdump -elf` output."""
    out, arch, kernel = {}, None, None
    for line in text.splitlines():
        stripped = line.strip()
        m = re.match(r"arch\s*=\s*(sm_\w+)", stripped)
        if m:
            arch, kernel = m.group(1), None
            out.setdefault(arch, {})
            continue
        # A section header (".section .nv.info.k" or a bare ".nv.info.k") starts a new context.
        m = re.match(r"(?:\.section\s+)?(\.[\w.$]+)\s*$", stripped) or re.match(r"\.section\s+(\.[\w.$]+)", stripped)
        if m and arch:
            name = m.group(1)
            kernel = name[len(".nv.info."):] if name.startswith(".nv.info.") else None
            if kernel:
                out[arch].setdefault(kernel, [])
            continue
        m = re.search(r"Ordinal\s*:\s*0x([0-9a-fA-F]+)\s+Offset\s*:\s*0x([0-9a-fA-F]+)\s+Size\s*:\s*0x([0-9a-fA-F]+)", line)
        if m and arch and kernel:
            out[arch][kernel].append(tuple(int(g, 16) for g in m.groups()))
    return out


def main(argv):
    ok = True
    pairs = list(zip(argv[1::2], argv[2::2]))
    for fatbin, sigs in pairs:
        text = subprocess.run(["cuobjdump", "-elf", fatbin], capture_output=True, text=True, check=True).stdout
        dumped = parse_cuobjdump(text)
        arch, committed = parse_signatures(sigs)
        print(f"{fatbin}: cuobjdump ELF arches {sorted(dumped)}; {sigs}: {len(committed)} kernels, offsets for {arch}")
        for a, kernels in dumped.items():
            want = {k for k, (archs, _) in committed.items() if a in archs}
            if set(kernels) != want:
                ok = False
                print(f"  MISMATCH {a}: cuobjdump lists {sorted(kernels)}, signatures.txt says {sorted(want)}")
        for k, (archs, params) in sorted(committed.items()):
            got = dumped.get(arch, {}).get(k)
            if got is None:
                ok = False
                print(f"  MISSING  {k}: not in cuobjdump's {arch} ELF")
                continue
            got = [(off, size) for _, off, size in sorted(got)]
            status = "ok" if got == params else "DIFFERS"
            ok &= got == params
            print(f"  {status:8} {k}: cuobjdump {got} signatures.txt {params}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
