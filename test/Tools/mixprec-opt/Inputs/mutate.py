"""Feeds mixprec-opt mutated copies of valid IR and fails if it crashes.

Each chunk of the corpus (split at `// -----`) is mutated many times with a
fixed seed: tokens deleted or duplicated, numbers replaced by edge values,
element types and shapes swapped, text truncated. All mutants go to one
mixprec-opt process with -split-input-file, so errors in one do not hide
the others. Any exit by signal (or an LLVM crash banner) is a failure, and
the offending mutant is printed.
"""
import argparse
import random
import re
import subprocess
import sys

SEPARATOR = "// -----"
EDGE_NUMBERS = ["0", "-1", "1", "2", "7", "9223372036854775807",
                "-9223372036854775808", "4294967296", "1.0e+308", "nan"]
# Not `index`: MLIR 22's own parser crashes on `array<index: ...>`, whatever
# the dialect (mlir-opt too), which is outside this project.
ELEMENT_TYPES = ["f32", "f16", "bf16", "f64", "i1", "i8", "i32", "i64"]
TOKEN = re.compile(r"[%@#]?[\w.]+|<|>|\(|\)|\[|\]|\{|\}|,|:|=|->")


def mutate(text, rng):
    tokens = [m for m in TOKEN.finditer(text)]
    if not tokens:
        return text
    kind = rng.randrange(6)
    m = rng.choice(tokens)
    start, end = m.span()
    if kind == 0:  # delete a token
        return text[:start] + text[end:]
    if kind == 1:  # duplicate a token
        return text[:end] + " " + m.group() + text[end:]
    if kind == 2:  # replace a number
        numbers = [t for t in tokens if re.fullmatch(r"-?\d+(\.\d+)?", t.group())]
        if numbers:
            m = rng.choice(numbers)
            start, end = m.span()
        return text[:start] + rng.choice(EDGE_NUMBERS) + text[end:]
    if kind == 3:  # swap an element type everywhere in one line
        lines = text.split("\n")
        i = rng.randrange(len(lines))
        lines[i] = re.sub(r"\b(f32|f16|bf16|i32|i64)\b",
                          rng.choice(ELEMENT_TYPES), lines[i])
        return "\n".join(lines)
    if kind == 4:  # change a shape
        return re.sub(r"tensor<(\d+)x", lambda s: "tensor<%sx" % rng.choice(
            ["1", "3", "?", "0", "65"]), text, count=rng.randrange(1, 3))
    return text[:rng.randrange(len(text))]  # truncate


def run(tool, chunks):
    proc = subprocess.run([tool, "-split-input-file", "-verify-each",
                           "-canonicalize", "-"],
                          input=("\n%s\n" % SEPARATOR).join(chunks),
                          capture_output=True, text=True)
    crashed = proc.returncode < 0 or proc.returncode >= 128 or \
        "PLEASE submit a bug report" in proc.stderr
    return crashed, proc.stderr


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tool", required=True)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--mutants-per-chunk", type=int, default=20)
    parser.add_argument("corpus", nargs="+")
    args = parser.parse_args()

    rng = random.Random(args.seed)
    chunks = []
    for path in args.corpus:
        with open(path) as f:
            text = f.read()
        for chunk in re.split(r"^// -----$", text, flags=re.M):
            code = "\n".join(l for l in chunk.split("\n")
                             if not l.lstrip().startswith("//"))
            if code.strip():
                chunks.append(code)
    mutants = [mutate(c, rng) for c in chunks
               for _ in range(args.mutants_per_chunk)]

    crashed, stderr = run(args.tool, mutants)
    if not crashed:
        print("%d mutants, no crash" % len(mutants))
        return 0
    for mutant in mutants:
        if run(args.tool, [mutant])[0]:
            print("mixprec-opt crashed on:\n" + mutant)
            break
    print(stderr[-4000:], file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
