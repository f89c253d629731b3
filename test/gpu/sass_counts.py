"""SASS instruction counts per kernel from `cuobjdump -sass` (or `nvdisasm`) text: the whole
function and its main loop (taken as the longest address span closed by a backward branch). Counted: HMMA (tensor-core MMA), LDL/STL (local memory: spills), LDGSTS (cp.async),
LDSM (ldmatrix), MUFU.EX2, BAR. Usage: python3 sass_counts.py SASS.txt [--json OUT]
"""
import json
import re
import sys

OPCODES = ("HMMA", "LDL", "STL", "LDGSTS", "LDSM", "MUFU.EX2", "BAR", "LDG", "STG")
_FUNC = re.compile(r"^\s*Function\s*:\s*(\S+)")
_INSN = re.compile(r"/\*([0-9a-f]{4,})\*/\s+(?:@!?U?P[T0-9]+\s+)?([A-Z][A-Z0-9_.]*)([^;]*);")
_LABEL = re.compile(r"^\s*(\.L_x_\d+):")
_TARGET = re.compile(r"(0x[0-9a-f]+)|`\((\.L_x_\d+)\)")


def _count(insns, lo=None, hi=None):
    out = {k: 0 for k in OPCODES}
    for addr, op, _ in insns:
        if lo is not None and not lo <= addr <= hi:
            continue
        for k in OPCODES:
            if op == k or op.startswith(k + "."):
                out[k] += 1
    return out


def parse(text):
    """{function: {"total": counts, "mainLoop": counts or None, "instructions": n}}"""
    functions = {}
    name, insns, labels = None, [], {}

    def finish():
        if name is None:
            return
        loops = []
        for addr, op, rest in insns:
            if not op.startswith("BRA"):
                continue
            m = _TARGET.search(rest)
            if not m:
                continue
            target = int(m.group(1), 16) if m.group(1) else labels.get(m.group(2))
            if target is not None and target <= addr:
                loops.append((addr - target, target, addr))
        main = max(loops) if loops else None
        functions[name] = {
            "instructions": len(insns),
            "total": _count(insns),
            "mainLoop": _count(insns, main[1], main[2]) if main else None,
        }

    pending_label = None
    for line in text.splitlines():
        m = _FUNC.match(line)
        if m:
            finish()
            name, insns, labels, pending_label = m.group(1), [], {}, None
            continue
        m = _LABEL.match(line)
        if m:
            pending_label = m.group(1)
            continue
        m = _INSN.search(line)
        if m and name is not None:
            addr = int(m.group(1), 16)
            if pending_label:
                labels[pending_label] = addr
                pending_label = None
            insns.append((addr, m.group(2), m.group(3)))
    finish()
    return functions


def main(argv):
    if len(argv) < 2:
        print(__doc__)
        return 2
    with open(argv[1], errors="replace") as f:
        functions = parse(f.read())
    if "--json" in argv:
        with open(argv[argv.index("--json") + 1], "w") as f:
            json.dump(functions, f, indent=1)
    for fn, c in sorted(functions.items()):
        loop = c["mainLoop"]
        short = re.sub(r"^_ZN9attnscope4cuda\d+", "", fn)[:100]
        print(f"{short}: {c['instructions']} insns; total " + " ".join(f"{k} {v}" for k, v in c["total"].items() if v)
              + ("; main loop " + " ".join(f"{k} {v}" for k, v in loop.items() if v) if loop else "; no loop"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
