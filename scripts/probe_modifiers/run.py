#!/usr/bin/env python3
"""Compiles the modules that generate.py wrote: first ptxas 12.9 on the module itself (at sm_80,
then sm_90; a module ptxas rejects is "invalid" and not counted), then `ptxr compile` for cpu,
nvptx, amdgpu and spirv, ptxas on the NVPTX output and spirv-val on the SPIR-V output.

Usage: run.py MODULE_DIR RESULTS.tsv [REGEX]  (REGEX picks families/forms: 'cvt|^tanh\t')
Environment: PTXR (default $CARGO_TARGET_DIR/release/ptxr, else target/release/ptxr), PTXAS
(default .cache/ptxas-cu12's), JOBS (parallel modules, default 2).
Each result row: family, form, path, the sm it was compiled for (or "invalid" and ptxas's
message), then per target `ok` or what went wrong (a diagnostic code and its message, PANIC,
SIGnn, PTXAS, SPIRVVAL). A summary by family goes to stdout.
"""
import collections, concurrent.futures, os, re, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MODS = sys.argv[1] if len(sys.argv) > 1 else 'probe-modules'
RESULTS = sys.argv[2] if len(sys.argv) > 2 else 'probe-results.tsv'
ONLY = sys.argv[3] if len(sys.argv) > 3 else None
PTXR = os.environ.get('PTXR') or os.path.join(os.environ.get('CARGO_TARGET_DIR', os.path.join(ROOT, 'target')), 'release', 'ptxr')
PTXAS = os.environ.get('PTXAS') or os.path.join(ROOT, '.cache', 'ptxas-cu12', 'nvidia', 'cuda_nvcc', 'bin', 'ptxas')
ENV = dict(os.environ)
SCRATCH = tempfile.mkdtemp(prefix='ptxr-probe-')


def sh(args, timeout=120):
    try:
        p = subprocess.run(args, capture_output=True, text=True, timeout=timeout, env=ENV)
        return p.returncode, p.stdout + p.stderr
    except subprocess.TimeoutExpired:
        return 'timeout', ''


def first_error(text):
    for line in text.splitlines():
        m = re.search(r'\[(E\d{4})\] Error: (.*)', line)
        if m:
            return m.group(1), m.group(2)[:160]
    lines = [l for l in text.splitlines() if l.strip()]
    return 'other', (lines[0][:160] if lines else '')


def check_valid(path):
    src = open(path).read()
    for sm in ['sm_80', 'sm_90']:
        s = src.replace('.target sm_80', f'.target {sm}')
        with tempfile.NamedTemporaryFile('w', suffix='.ptx', dir=SCRATCH, delete=False) as f:
            f.write(s)
        rc, out = sh([PTXAS, f'-arch={sm}', f.name, '-o', '/dev/null'])
        os.unlink(f.name)
        if rc == 0:
            if sm != 'sm_80':
                open(path, 'w').write(s)
            return sm, ''
        err = out
    return None, err.strip().splitlines()[0][:160] if err.strip() else ''


def one(line):
    fam, name, path = line.rstrip('\n').split('\t')
    sm, err = check_valid(path)
    if sm is None:
        return [fam, name, path, 'invalid', err]
    row = [fam, name, path, sm]
    d = tempfile.mkdtemp(dir=SCRATCH)
    for target in ['cpu', 'nvptx', 'amdgpu', 'spirv']:
        out = os.path.join(d, 'o.' + target)
        rc, text = sh([PTXR, 'compile', '--target', target, path, '-o', out])
        if rc == 'timeout':
            row.append(f'{target}:TIMEOUT')
            continue
        if rc != 0:
            code, msg = first_error(text)
            if rc < 0 or 'panicked' in text:
                code = 'PANIC' if 'panicked' in text else f'SIG{-rc}'
                msg = next((l for l in text.splitlines() if 'panicked' in l or 'LLVM ERROR' in l), msg)[:160]
            row.append(f'{target}:{code}:{msg}')
            continue
        if not os.path.exists(out):
            row.append(f'{target}:NOOUT')
            continue
        if target == 'nvptx':
            rc2, t2 = sh([PTXAS, f'-arch={sm}', out, '-o', '/dev/null'])
            if rc2 != 0:
                row.append(f'{target}:PTXAS:{t2.strip().splitlines()[0][:160] if t2.strip() else ""}')
                continue
        if target == 'spirv':
            rc2, t2 = sh(['spirv-val', out])
            if rc2 != 0:
                row.append(f'{target}:SPIRVVAL:{t2.strip().splitlines()[0][:160] if t2.strip() else ""}')
                continue
        row.append(f'{target}:ok')
    for f in os.listdir(d):
        os.unlink(os.path.join(d, f))
    os.rmdir(d)
    return row


lines = open(os.path.join(MODS, 'combos.tsv')).readlines()
if ONLY:
    lines = [l for l in lines if re.search(ONLY, l.split('\t')[0] + '\t' + l.split('\t')[1])]
with open(RESULTS, 'w') as out, concurrent.futures.ThreadPoolExecutor(int(os.environ.get('JOBS', '2'))) as ex:
    summary = collections.defaultdict(lambda: [0, 0, 0])
    for row in ex.map(one, lines):
        out.write('\t'.join(row).replace('\n', ' ') + '\n')
        out.flush()
        counts = summary[row[0]]
        if row[3] == 'invalid':
            counts[2] += 1
        else:
            counts[0] += 1
            counts[1] += any(not cell.endswith(':ok') for cell in row[4:])
print('family\tvalid\tfailing on some target\tinvalid (ptxas)')
for family, (valid, failing, invalid) in sorted(summary.items()):
    print(f'{family}\t{valid}\t{failing}\t{invalid}')
print(f'total\t{sum(c[0] for c in summary.values())}\t{sum(c[1] for c in summary.values())}\t{sum(c[2] for c in summary.values())}')
