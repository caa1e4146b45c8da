#!/usr/bin/env python3
"""Writes one small PTX module per modifier combination of the instructions of PTX ISA 7.8
section 9.7 (and the special registers of chapter 10), for `run.py` to compile on every target.

Usage: generate.py OUT_DIR. Writes OUT_DIR/NNNNN.ptx and OUT_DIR/combos.tsv
(family<TAB>form<TAB>path). Every module is `.version 7.8`, `.target sm_80` (run.py moves a form
that ptxas accepts only on sm_90 there), one kernel that loads each source operand from global
memory, runs the instruction and stores each destination. Some combinations are deliberately
ones that PTX 7.8 may not allow (the cross product is cheaper to write than the exact rules):
run.py asks ptxas which are valid and leaves the others out.
"""
import itertools, os, sys

OUT = sys.argv[1] if len(sys.argv) > 1 else 'probe-modules'

REGCLASS = {
    'pred': ('.pred', 'p'),
    'b16': ('.b16', 'h'), 'u16': ('.b16', 'h'), 's16': ('.b16', 'h'), 'f16': ('.b16', 'h'), 'bf16': ('.b16', 'h'),
    'b32': ('.b32', 'r'), 'u32': ('.b32', 'r'), 's32': ('.b32', 'r'), 'f16x2': ('.b32', 'r'), 'bf16x2': ('.b32', 'r'),
    'tf32': ('.b32', 'r'),
    'f32': ('.f32', 'f'),
    'b64': ('.b64', 'rl'), 'u64': ('.b64', 'rl'), 's64': ('.b64', 'rl'),
    'f64': ('.f64', 'fd'),
    'u8': ('.b16', 'h'), 's8': ('.b16', 'h'), 'b8': ('.b16', 'h'),
}
LDTYPE = {'f16': 'b16', 'bf16': 'b16', 'f16x2': 'b32', 'bf16x2': 'b32', 'tf32': 'b32', 'u8': 'u8', 's8': 's8', 'b8': 'b8'}
SIZE = {'b16': 2, 'u16': 2, 's16': 2, 'f16': 2, 'bf16': 2, 'b32': 4, 'u32': 4, 's32': 4, 'f32': 4,
        'f16x2': 4, 'bf16x2': 4, 'tf32': 4, 'b64': 8, 'u64': 8, 's64': 8, 'f64': 8, 'u8': 1, 's8': 1, 'b8': 1, 'pred': 4}


class M:
    def __init__(self):
        self.counts = {}
        self.pre = []
        self.post = []
        self.off = 0
        self.scope = []

    def reg(self, ty):
        decl, prefix = REGCLASS[ty]
        n = self.counts.get(prefix, (decl, 0))[1] + 1
        self.counts[prefix] = (decl, n)
        return f'%{prefix}{n}'

    def _addr(self, ty):
        size = SIZE[ty]
        self.off = (self.off + size - 1) // size * size
        a = f'[%rd2+{self.off}]'
        self.off += size
        return a

    def s(self, ty):
        r = self.reg(ty)
        if ty == 'pred':
            t = self.reg('u32')
            self.pre.append(f'ld.global.u32 {t}, {self._addr("u32")}')
            self.pre.append(f'setp.ne.u32 {r}, {t}, 0')
        else:
            self.pre.append(f'ld.global.{LDTYPE.get(ty, ty)} {r}, {self._addr(ty)}')
        return r

    def d(self, ty):
        r = self.reg(ty)
        if ty == 'pred':
            t = self.reg('u32')
            self.post.append(f'selp.u32 {t}, 1, 0, {r}')
            self.post.append(f'st.global.u32 {self._addr("u32")}, {t}')
        else:
            self.post.append(f'st.global.{LDTYPE.get(ty, ty)} {self._addr(ty)}, {r}')
        return r

    def vs(self, ty, n):
        return '{' + ', '.join(self.s(ty) for _ in range(n)) + '}'

    def vd(self, ty, n):
        return '{' + ', '.join(self.d(ty) for _ in range(n)) + '}'

    def source(self, body, header='.version 7.8\n.target sm_80'):
        lines = [header, '.address_size 64', '']
        lines += self.scope
        lines.append('.visible .entry k(.param .u64 p)\n{\n    .reg .b64 %rd<3>;')
        for prefix, (decl, n) in sorted(self.counts.items()):
            lines.append(f'    .reg {decl} %{prefix}<{n + 1}>;')
        lines.append('    ld.param.u64 %rd1, [p];\n    cvta.to.global.u64 %rd2, %rd1;')
        for s in self.pre + ([body] if isinstance(body, str) else body) + self.post:
            if s.endswith(':'):
                lines.append(s)
            else:
                lines.append(f'    {s};')
        lines.append('    ret;\n}\n')
        return '\n'.join(lines)


COMBOS = []  # (family, name, source)


def add(family, name, fn):
    m = M()
    body = fn(m)
    COMBOS.append((family, name, m.source(body)))


def opt(*xs):
    return ['', *xs]


INT = ['u16', 'u32', 'u64', 's16', 's32', 's64']
SINT = ['s16', 's32', 's64']

# ---------------- 9.7.1 integer ----------------
for op in ['add', 'sub']:
    for t in INT:
        add(op, f'{op}.{t}', lambda m, op=op, t=t: f'{op}.{t} {m.d(t)}, {m.s(t)}, {m.s(t)}')
    add(op, f'{op}.sat.s32', lambda m, op=op: f'{op}.sat.s32 {m.d("s32")}, {m.s("s32")}, {m.s("s32")}')
WIDE = {'u16': 'u32', 's16': 's32', 'u32': 'u64', 's32': 's64'}
for t in INT:
    for mode in ['hi', 'lo', 'wide']:
        if mode == 'wide' and t not in WIDE:
            continue
        dt = WIDE[t] if mode == 'wide' else t
        add('mul', f'mul.{mode}.{t}', lambda m, mode=mode, t=t, dt=dt: f'mul.{mode}.{t} {m.d(dt)}, {m.s(t)}, {m.s(t)}')
        add('mad', f'mad.{mode}.{t}', lambda m, mode=mode, t=t, dt=dt: f'mad.{mode}.{t} {m.d(dt)}, {m.s(t)}, {m.s(t)}, {m.s(dt)}')
add('mad', 'mad.hi.sat.s32', lambda m: f'mad.hi.sat.s32 {m.d("s32")}, {m.s("s32")}, {m.s("s32")}, {m.s("s32")}')
for t in ['u32', 's32']:
    for mode in ['hi', 'lo']:
        add('mul24', f'mul24.{mode}.{t}', lambda m, mode=mode, t=t: f'mul24.{mode}.{t} {m.d(t)}, {m.s(t)}, {m.s(t)}')
        add('mad24', f'mad24.{mode}.{t}', lambda m, mode=mode, t=t: f'mad24.{mode}.{t} {m.d(t)}, {m.s(t)}, {m.s(t)}, {m.s(t)}')
add('mad24', 'mad24.hi.sat.s32', lambda m: f'mad24.hi.sat.s32 {m.d("s32")}, {m.s("s32")}, {m.s("s32")}, {m.s("s32")}')
for t in INT:
    add('sad', f'sad.{t}', lambda m, t=t: f'sad.{t} {m.d(t)}, {m.s(t)}, {m.s(t)}, {m.s(t)}')
    for op in ['div', 'rem', 'min', 'max']:
        add(op, f'{op}.{t}', lambda m, op=op, t=t: f'{op}.{t} {m.d(t)}, {m.s(t)}, {m.s(t)}')
    # immediates
    add('add', f'add.{t} imm', lambda m, t=t: f'add.{t} {m.d(t)}, {m.s(t)}, 7')
for t in SINT:
    for op in ['abs', 'neg']:
        add(op, f'{op}.{t}', lambda m, op=op, t=t: f'{op}.{t} {m.d(t)}, {m.s(t)}')
for t in ['b32', 'b64']:
    add('popc', f'popc.{t}', lambda m, t=t: f'popc.{t} {m.d("u32")}, {m.s(t)}')
    add('clz', f'clz.{t}', lambda m, t=t: f'clz.{t} {m.d("u32")}, {m.s(t)}')
    add('brev', f'brev.{t}', lambda m, t=t: f'brev.{t} {m.d(t)}, {m.s(t)}')
    add('bfi', f'bfi.{t}', lambda m, t=t: f'bfi.{t} {m.d(t)}, {m.s(t)}, {m.s(t)}, {m.s("u32")}, {m.s("u32")}')
for t in ['u32', 'u64', 's32', 's64']:
    for sh in opt('.shiftamt'):
        add('bfind', f'bfind{sh}.{t}', lambda m, t=t, sh=sh: f'bfind{sh}.{t} {m.d("u32")}, {m.s(t)}')
    add('bfe', f'bfe.{t}', lambda m, t=t: f'bfe.{t} {m.d(t)}, {m.s(t)}, {m.s("u32")}, {m.s("u32")}')
add('fns', 'fns.b32', lambda m: f'fns.b32 {m.d("b32")}, {m.s("b32")}, {m.s("b32")}, {m.s("s32")}')
for mode in ['wrap', 'clamp']:
    for t in ['u32', 's32']:
        add('szext', f'szext.{mode}.{t}', lambda m, mode=mode, t=t: f'szext.{mode}.{t} {m.d(t)}, {m.s(t)}, {m.s("u32")}')
    add('bmsk', f'bmsk.{mode}.b32', lambda m, mode=mode: f'bmsk.{mode}.b32 {m.d("b32")}, {m.s("b32")}, {m.s("b32")}')
for a, b in itertools.product(['u32', 's32'], repeat=2):
    add('dp4a', f'dp4a.{a}.{b}', lambda m, a=a, b=b: f'dp4a.{a}.{b} {m.d("u32")}, {m.s(a)}, {m.s(b)}, {m.s("u32")}')
    for mode in ['lo', 'hi']:
        add('dp2a', f'dp2a.{mode}.{a}.{b}', lambda m, a=a, b=b, mode=mode: f'dp2a.{mode}.{a}.{b} {m.d("u32")}, {m.s(a)}, {m.s(b)}, {m.s("u32")}')

# ---------------- 9.7.2 extended precision ----------------
for t in ['u32', 's32', 'u64', 's64']:
    for op in ['add', 'sub']:
        add(f'{op}c', f'{op}.cc/{op}c/{op}c.cc.{t}', lambda m, op=op, t=t: [
            f'{op}.cc.{t} {m.d(t)}, {m.s(t)}, {m.s(t)}', f'{op}c.cc.{t} {m.d(t)}, {m.s(t)}, {m.s(t)}', f'{op}c.{t} {m.d(t)}, {m.s(t)}, {m.s(t)}'])
    for mode in ['hi', 'lo']:
        add('madc', f'mad.{mode}.cc/madc.{mode}.cc/madc.{mode}.{t}', lambda m, mode=mode, t=t: [
            f'mad.{mode}.cc.{t} {m.d(t)}, {m.s(t)}, {m.s(t)}, {m.s(t)}', f'madc.{mode}.cc.{t} {m.d(t)}, {m.s(t)}, {m.s(t)}, {m.s(t)}',
            f'madc.{mode}.{t} {m.d(t)}, {m.s(t)}, {m.s(t)}, {m.s(t)}'])

# ---------------- 9.7.3 floating point ----------------
RND = ['.rn', '.rz', '.rm', '.rp']
for t in ['f32', 'f64']:
    for c in ['finite', 'infinite', 'number', 'notanumber', 'normal', 'subnormal']:
        add('testp', f'testp.{c}.{t}', lambda m, c=c, t=t: f'testp.{c}.{t} {m.d("pred")}, {m.s(t)}')
    add('copysign', f'copysign.{t}', lambda m, t=t: f'copysign.{t} {m.d(t)}, {m.s(t)}, {m.s(t)}')
    ftzs = opt('.ftz') if t == 'f32' else ['']
    sats = opt('.sat') if t == 'f32' else ['']
    for op in ['add', 'sub', 'mul']:
        for r, f, s in itertools.product(opt(*RND), ftzs, sats):
            add(op, f'{op}{r}{f}{s}.{t}', lambda m, op=op, t=t, n=f'{op}{r}{f}{s}.{t}': f'{n} {m.d(t)}, {m.s(t)}, {m.s(t)}')
    for op in ['fma', 'mad']:
        for r, f, s in itertools.product(RND if op == 'fma' else opt(*RND), ftzs, sats):
            add(op, f'{op}{r}{f}{s}.{t}', lambda m, t=t, n=f'{op}{r}{f}{s}.{t}': f'{n} {m.d(t)}, {m.s(t)}, {m.s(t)}, {m.s(t)}')
    for r, f in itertools.product(RND, ftzs):
        add('div', f'div{r}{f}.{t}', lambda m, t=t, n=f'div{r}{f}.{t}': f'{n} {m.d(t)}, {m.s(t)}, {m.s(t)}')
        add('rcp', f'rcp{r}{f}.{t}', lambda m, t=t, n=f'rcp{r}{f}.{t}': f'{n} {m.d(t)}, {m.s(t)}')
        add('sqrt', f'sqrt{r}{f}.{t}', lambda m, t=t, n=f'sqrt{r}{f}.{t}': f'{n} {m.d(t)}, {m.s(t)}')
    for op in ['abs', 'neg']:
        for f in ftzs:
            add(op, f'{op}{f}.{t}', lambda m, t=t, n=f'{op}{f}.{t}': f'{n} {m.d(t)}, {m.s(t)}')
    for op in ['min', 'max']:
        for f, nan in itertools.product(ftzs, opt('.NaN') if t == 'f32' else ['']):
            add(op, f'{op}{f}{nan}.{t}', lambda m, t=t, n=f'{op}{f}{nan}.{t}': f'{n} {m.d(t)}, {m.s(t)}, {m.s(t)}')
        if t == 'f32':
            add(op, f'{op}.xorsign.abs.f32', lambda m, n=f'{op}.xorsign.abs.f32': f'{n} {m.d("f32")}, {m.s("f32")}, {m.s("f32")}')
            add(op, f'{op}.NaN.xorsign.abs.f32', lambda m, n=f'{op}.NaN.xorsign.abs.f32': f'{n} {m.d("f32")}, {m.s("f32")}, {m.s("f32")}')
for f in opt('.ftz'):
    add('div', f'div.approx{f}.f32', lambda m, n=f'div.approx{f}.f32': f'{n} {m.d("f32")}, {m.s("f32")}, {m.s("f32")}')
    add('div', f'div.full{f}.f32', lambda m, n=f'div.full{f}.f32': f'{n} {m.d("f32")}, {m.s("f32")}, {m.s("f32")}')
    for op in ['rcp', 'sqrt', 'rsqrt', 'sin', 'cos', 'lg2', 'ex2']:
        add(op, f'{op}.approx{f}.f32', lambda m, n=f'{op}.approx{f}.f32': f'{n} {m.d("f32")}, {m.s("f32")}')
add('rcp', 'rcp.approx.ftz.f64', lambda m: f'rcp.approx.ftz.f64 {m.d("f64")}, {m.s("f64")}')
add('rsqrt', 'rsqrt.approx.f64', lambda m: f'rsqrt.approx.f64 {m.d("f64")}, {m.s("f64")}')
add('rsqrt', 'rsqrt.approx.ftz.f64', lambda m: f'rsqrt.approx.ftz.f64 {m.d("f64")}, {m.s("f64")}')
add('tanh', 'tanh.approx.f32', lambda m: f'tanh.approx.f32 {m.d("f32")}, {m.s("f32")}')
add('add', 'add.f32 imm 0f', lambda m: f'add.f32 {m.d("f32")}, {m.s("f32")}, 0f3F800000')
add('add', 'add.f64 imm 0d', lambda m: f'add.f64 {m.d("f64")}, {m.s("f64")}, 0d3FF0000000000000')
add('add', 'add.f32 imm 1.5', lambda m: f'add.f32 {m.d("f32")}, {m.s("f32")}, 1.5')

# ---------------- 9.7.4 half precision ----------------
HT = ['f16', 'f16x2', 'bf16', 'bf16x2']
for t in HT:
    bf = t.startswith('bf')
    for op in ['add', 'sub', 'mul']:
        mods = [''] + (['.rn'] if True else [])
        for r in ['', '.rn']:
            for f, s in (itertools.product(opt('.ftz'), opt('.sat')) if not bf else [('', '')]):
                n = f'{op}{r}{f}{s}.{t}'
                add(op, n, lambda m, t=t, n=n: f'{n} {m.d(t)}, {m.s(t)}, {m.s(t)}')
    for f, s in (itertools.product(opt('.ftz'), ['', '.sat', '.relu']) if not bf else [('', ''), ('', '.relu')]):
        n = f'fma.rn{f}{s}.{t}'
        add('fma', n, lambda m, t=t, n=n: f'{n} {m.d(t)}, {m.s(t)}, {m.s(t)}, {m.s(t)}')
    for op in ['neg', 'abs']:
        for f in (opt('.ftz') if not bf else ['']):
            n = f'{op}{f}.{t}'
            add(op, n, lambda m, t=t, n=n: f'{n} {m.d(t)}, {m.s(t)}')
    for op in ['min', 'max']:
        for f, nan in itertools.product(opt('.ftz') if not bf else [''], opt('.NaN')):
            n = f'{op}{f}{nan}.{t}'
            add(op, n, lambda m, t=t, n=n: f'{n} {m.d(t)}, {m.s(t)}, {m.s(t)}')
        n = f'{op}.xorsign.abs.{t}'
        add(op, n, lambda m, t=t, n=n: f'{n} {m.d(t)}, {m.s(t)}, {m.s(t)}')
    n = f'tanh.approx.{t}'
    add('tanh', n, lambda m, t=t, n=n: f'{n} {m.d(t)}, {m.s(t)}')
    n = f'ex2.approx.ftz.{t}' if bf else f'ex2.approx.{t}'
    add('ex2', n, lambda m, t=t, n=n: f'{n} {m.d(t)}, {m.s(t)}')

# ---------------- 9.7.5 comparison ----------------
ICMP = ['eq', 'ne', 'lt', 'le', 'gt', 'ge']
UCMP = ['lo', 'ls', 'hi', 'hs']
FCMP = ['equ', 'neu', 'ltu', 'leu', 'gtu', 'geu', 'num', 'nan']
CMPT = ['b16', 'b32', 'b64', 'u16', 'u32', 'u64', 's16', 's32', 's64', 'f32', 'f64']
for t in CMPT:
    cmps = ICMP + (UCMP if t[0] in 'ub' else []) + (FCMP if t[0] == 'f' else [])
    if t[0] == 'b':
        cmps = ['eq', 'ne']
    for c in cmps:
        add('setp', f'setp.{c}.{t}', lambda m, t=t, c=c: f'setp.{c}.{t} {m.d("pred")}, {m.s(t)}, {m.s(t)}')
    for bop in ['and', 'or', 'xor']:
        add('setp', f'setp.eq.{bop}.{t} p|q', lambda m, t=t, bop=bop: f'setp.eq.{bop}.{t} {m.d("pred")}|{m.d("pred")}, {m.s(t)}, {m.s(t)}, {m.s("pred")}')
        add('setp', f'setp.ne.{bop}.{t} !c', lambda m, t=t, bop=bop: f'setp.ne.{bop}.{t} {m.d("pred")}, {m.s(t)}, {m.s(t)}, !{m.s("pred")}')
    for dt in ['u32', 's32', 'f32']:
        add('set', f'set.lt.{dt}.{t}', lambda m, t=t, dt=dt: f'set.{"eq" if t[0]=="b" else "lt"}.{dt}.{t} {m.d(dt)}, {m.s(t)}, {m.s(t)}')
        add('set', f'set.ne.or.{dt}.{t}', lambda m, t=t, dt=dt: f'set.ne.or.{dt}.{t} {m.d(dt)}, {m.s(t)}, {m.s(t)}, {m.s("pred")}')
    if t == 'f32':
        add('setp', 'setp.lt.ftz.f32', lambda m: f'setp.lt.ftz.f32 {m.d("pred")}, {m.s("f32")}, {m.s("f32")}')
        add('set', 'set.gtu.ftz.f32.f32', lambda m: f'set.gtu.ftz.f32.f32 {m.d("f32")}, {m.s("f32")}, {m.s("f32")}')
    add('selp', f'selp.{t}', lambda m, t=t: f'selp.{t} {m.d(t)}, {m.s(t)}, {m.s(t)}, {m.s("pred")}')
add('setp', 'setp.eq.u32 imm', lambda m: f'setp.eq.u32 {m.d("pred")}, {m.s("u32")}, 5')
for dt in ['b16', 'b32', 'b64', 'u16', 'u32', 'u64', 's16', 's32', 's64', 'f32', 'f64']:
    for ct in ['s32', 'f32']:
        for f in (opt('.ftz') if ct == 'f32' else ['']):
            add('slct', f'slct{f}.{dt}.{ct}', lambda m, dt=dt, ct=ct, f=f: f'slct{f}.{dt}.{ct} {m.d(dt)}, {m.s(dt)}, {m.s(dt)}, {m.s(ct)}')
for t in HT:
    for c in ICMP + FCMP:
        for f in (opt('.ftz') if not t.startswith('bf') else ['']):
            if t.endswith('x2'):
                add('setp', f'setp.{c}{f}.{t} p|q', lambda m, t=t, c=c, f=f: f'setp.{c}{f}.{t} {m.d("pred")}|{m.d("pred")}, {m.s(t)}, {m.s(t)}')
            else:
                add('setp', f'setp.{c}{f}.{t}', lambda m, t=t, c=c, f=f: f'setp.{c}{f}.{t} {m.d("pred")}, {m.s(t)}, {m.s(t)}')
    for dt in (['u16', 's16', 'u32', 's32', 'f16', 'f32', 'bf16'] if not t.endswith('x2') else ['u32', 's32', 'f16x2', 'bf16x2']):
        add('set', f'set.lt.{dt}.{t}', lambda m, t=t, dt=dt: f'set.lt.{dt}.{t} {m.d(dt)}, {m.s(t)}, {m.s(t)}')
    add('set', f'set.lt.and.u32.{t}', lambda m, t=t: f'set.lt.and.{"u32" if t.endswith("x2") else "u32"}.{t} {m.d("u32")}, {m.s(t)}, {m.s(t)}, {m.s("pred")}')

# ---------------- 9.7.6 logic ----------------
for t in ['pred', 'b16', 'b32', 'b64']:
    for op in ['and', 'or', 'xor']:
        add(op, f'{op}.{t}', lambda m, op=op, t=t: f'{op}.{t} {m.d(t)}, {m.s(t)}, {m.s(t)}')
    for op in ['not', 'cnot']:
        if op == 'cnot' and t == 'pred':
            continue
        add(op, f'{op}.{t}', lambda m, op=op, t=t: f'{op}.{t} {m.d(t)}, {m.s(t)}')
add('lop3', 'lop3.b32', lambda m: f'lop3.b32 {m.d("b32")}, {m.s("b32")}, {m.s("b32")}, {m.s("b32")}, 0x96')
for dirn, mode in itertools.product(['l', 'r'], ['wrap', 'clamp']):
    add('shf', f'shf.{dirn}.{mode}.b32', lambda m, n=f'shf.{dirn}.{mode}.b32': f'{n} {m.d("b32")}, {m.s("b32")}, {m.s("b32")}, {m.s("u32")}')
for t in ['b16', 'b32', 'b64']:
    add('shl', f'shl.{t}', lambda m, t=t: f'shl.{t} {m.d(t)}, {m.s(t)}, {m.s("u32")}')
for t in ['b16', 'b32', 'b64', 'u16', 'u32', 'u64', 's16', 's32', 's64']:
    add('shr', f'shr.{t}', lambda m, t=t: f'shr.{t} {m.d(t)}, {m.s(t)}, {m.s("u32")}')
    add('shr', f'shr.{t} imm', lambda m, t=t: f'shr.{t} {m.d(t)}, {m.s(t)}, 3')

# ---------------- 9.7.8 data movement ----------------
MOVT = ['pred', 'b16', 'b32', 'b64', 'u16', 'u32', 'u64', 's16', 's32', 's64', 'f32', 'f64']
for t in MOVT:
    add('mov', f'mov.{t}', lambda m, t=t: f'mov.{t} {m.d(t)}, {m.s(t)}')
add('mov', 'mov.b32 {h,h}', lambda m: f'mov.b32 {m.d("b32")}, {{{m.s("b16")}, {m.s("b16")}}}')
add('mov', 'mov.b64 {r,r}', lambda m: f'mov.b64 {m.d("b64")}, {{{m.s("b32")}, {m.s("b32")}}}')
add('mov', 'mov.b64 {h,h,h,h}', lambda m: f'mov.b64 {m.d("b64")}, {{{m.s("b16")}, {m.s("b16")}, {m.s("b16")}, {m.s("b16")}}}')
add('mov', 'mov.b64 unpack {r,r}', lambda m: f'mov.b64 {{{m.d("b32")}, {m.d("b32")}}}, {m.s("b64")}')
add('mov', 'mov.b32 unpack {h,h}', lambda m: f'mov.b32 {{{m.d("b16")}, {m.d("b16")}}}, {m.s("b32")}')
add('mov', 'mov.b128 {rl,rl}', lambda m: [f'.reg .b128 %q1', f'mov.b128 %q1, {{{m.s("b64")}, {m.s("b64")}}}', f'mov.b128 {{{m.d("b64")}, {m.d("b64")}}}, %q1'])
add('mov', 'mov.u32 kernel param address', lambda m: f'mov.u64 {m.d("u64")}, p')
for mode in ['up', 'down', 'bfly', 'idx']:
    add('shfl', f'shfl.sync.{mode}.b32', lambda m, mode=mode: f'shfl.sync.{mode}.b32 {m.d("b32")}, {m.s("b32")}, {m.s("u32")}, 31, -1')
    add('shfl', f'shfl.sync.{mode}.b32 d|p', lambda m, mode=mode: f'shfl.sync.{mode}.b32 {m.d("b32")}|{m.d("pred")}, {m.s("b32")}, 1, 0x1f, 0xffffffff')
for mode in opt('.f4e', '.b4e', '.rc8', '.ecl', '.ecr', '.rc16'):
    add('prmt', f'prmt.b32{mode}', lambda m, n=f'prmt.b32{mode}': f'{n} {m.d("b32")}, {m.s("b32")}, {m.s("b32")}, {m.s("b32")}')

LDT = ['b8', 'u8', 's8', 'b16', 'u16', 's16', 'f16', 'b32', 'u32', 's32', 'f32', 'b64', 'u64', 's64', 'f64']
REGFOR = {'b8': 'u16', 'u8': 'u16', 's8': 's16'}
SPACES = ['', '.global', '.shared', '.local', '.const', '.param']


def space_addr(m, space, ro=False):
    if space in ('', '.global'):
        return '%rd2'
    if space == '.shared':
        if '.shared .align 16 .b8 sbuf[256];' not in m.scope:
            m.scope.append('.shared .align 16 .b8 sbuf[256];')
        return 'sbuf'
    if space == '.const':
        if '.const .align 16 .b8 cbuf[256];' not in m.scope:
            m.scope.append('.const .align 16 .b8 cbuf[256];')
        return 'cbuf'
    if space == '.local':
        m.pre.insert(0, '.local .align 16 .b8 lbuf[256]') if '.local .align 16 .b8 lbuf[256]' not in m.pre else None
        return 'lbuf'
    if space == '.param':
        return 'p'


for space in SPACES:
    for t in LDT:
        if t == 'f16':
            continue
        rt = REGFOR.get(t, t)
        for vec in ['', '.v2', '.v4']:
            if vec == '.v4' and SIZE[t] == 8 and False:
                pass
            if space == '.param' and vec:
                continue
            n = vec and int(vec[2])
            def fld(m, space=space, t=t, rt=rt, vec=vec, n=n):
                a = space_addr(m, space)
                dst = m.vd(rt, n) if vec else m.d(rt)
                return f'ld{space}{vec}.{t} {dst}, [{a}]'
            add('ld', f'ld{space}{vec}.{t}', fld)
            if space != '.const' and space != '.param':
                def fst(m, space=space, t=t, rt=rt, vec=vec, n=n):
                    a = space_addr(m, space)
                    src = m.vs(rt, n) if vec else m.s(rt)
                    return f'st{space}{vec}.{t} [{a}], {src}'
                add('st', f'st{space}{vec}.{t}', fst)
# memory ordering
for space in ['', '.global', '.shared']:
    for sem in ['.volatile', '.relaxed.cta', '.relaxed.gpu', '.relaxed.sys', '.acquire.cta', '.acquire.gpu', '.acquire.sys', '.relaxed.cluster', '.acquire.cluster', '.weak', '.mmio.relaxed.sys']:
        for t in ['u32', 'u64', 'f32', 'u8', 'u16', 'f64']:
            rt = REGFOR.get(t, t)
            add('ld', f'ld{sem}{space}.{t}', lambda m, space=space, sem=sem, t=t, rt=rt: f'ld{sem}{space}.{t} {m.d(rt)}, [{space_addr(m, space)}]')
        add('ld', f'ld{sem}{space}.v2.u32', lambda m, space=space, sem=sem: f'ld{sem}{space}.v2.u32 {m.vd("u32", 2)}, [{space_addr(m, space)}]')
        ssem = sem.replace('acquire', 'release')
        for t in ['u32', 'u64', 'f32', 'u8', 'u16', 'f64']:
            rt = REGFOR.get(t, t)
            add('st', f'st{ssem}{space}.{t}', lambda m, space=space, ssem=ssem, t=t, rt=rt: f'st{ssem}{space}.{t} [{space_addr(m, space)}], {m.s(rt)}')
        add('st', f'st{ssem}{space}.v4.u32', lambda m, space=space, ssem=ssem: f'st{ssem}{space}.v4.u32 [{space_addr(m, space)}], {m.vs("u32", 4)}')
# cache operators, eviction priorities, prefetch sizes
for space in ['', '.global', '.shared', '.local']:
    for cop in ['.ca', '.cg', '.cs', '.lu', '.cv']:
        add('ld', f'ld{space}{cop}.u32', lambda m, space=space, cop=cop: f'ld{space}{cop}.u32 {m.d("u32")}, [{space_addr(m, space)}]')
        add('ld', f'ld{space}{cop}.v4.f32', lambda m, space=space, cop=cop: f'ld{space}{cop}.v4.f32 {m.vd("f32", 4)}, [{space_addr(m, space)}]')
    for cop in ['.wb', '.cg', '.cs', '.wt']:
        add('st', f'st{space}{cop}.u32', lambda m, space=space, cop=cop: f'st{space}{cop}.u32 [{space_addr(m, space)}], {m.s("u32")}')
        add('st', f'st{space}{cop}.v2.f64', lambda m, space=space, cop=cop: f'st{space}{cop}.v2.f64 [{space_addr(m, space)}], {m.vs("f64", 2)}')
for ev in ['.L1::evict_normal', '.L1::evict_unchanged', '.L1::evict_first', '.L1::evict_last', '.L1::no_allocate', '.L2::64B', '.L2::128B', '.L2::256B', '.L1::evict_last.L2::256B', '.L1::evict_first.L2::cache_hint', '.L2::cache_hint']:
    hint = '.L2::cache_hint' in ev
    for space in ['', '.global']:
        def fl(m, space=space, ev=ev, hint=hint):
            a = space_addr(m, space)
            body = f'ld{space}{ev}.u32 {m.d("u32")}, [{a}]'
            return body + (f', {m.s("b64")}' if hint else '')
        add('ld', f'ld{space}{ev}.u32', fl)
        def fl4(m, space=space, ev=ev, hint=hint):
            a = space_addr(m, space)
            body = f'ld{space}{ev}.v4.u32 {m.vd("u32", 4)}, [{a}]'
            return body + (f', {m.s("b64")}' if hint else '')
        add('ld', f'ld{space}{ev}.v4.u32', fl4)
        def fnc(m, ev=ev, hint=hint):
            body = f'ld.global.nc{ev}.f32 {m.d("f32")}, [%rd2]'
            return body + (f', {m.s("b64")}' if hint else '')
        add('ld.nc', f'ld.global.nc{ev}.f32', fnc)
        if 'L2::' not in ev or hint:
            def fs(m, space=space, ev=ev, hint=hint):
                body = f'st{space}{ev}.u32 [{space_addr(m, space)}], {m.s("u32")}'
                return body + (f', {m.s("b64")}' if hint else '')
            add('st', f'st{space}{ev}.u32', fs)
    add('ld', f'ld.relaxed.gpu.global{ev}.u32', lambda m, ev=ev, hint=hint: f'ld.relaxed.gpu.global{ev}.u32 {m.d("u32")}, [%rd2]' + (f', {m.s("b64")}' if hint else ''))
for cop in opt('.ca', '.cg', '.cs', '.lu', '.cv'):
    for t in ['u8', 's8', 'u16', 'u32', 'f32', 'u64', 'f64', 'b32']:
        for vec in ['', '.v2', '.v4']:
            if vec == '.v4' and SIZE[t] == 8:
                continue
            rt = REGFOR.get(t, t)
            add('ld.nc', f'ld.global.nc{cop}{vec}.{t}', lambda m, cop=cop, vec=vec, t=t, rt=rt: f'ld.global.nc{cop}{vec}.{t} {(m.vd(rt, int(vec[2])) if vec else m.d(rt))}, [%rd2]')
for space in ['', '.global', '.shared']:
    for t in ['u32', 'f32', 'u64', 'f64', 'b16', 'u8']:
        for vec in ['', '.v2', '.v4']:
            rt = REGFOR.get(t, t)
            add('ldu', f'ldu{space}{vec}.{t}', lambda m, space=space, vec=vec, t=t, rt=rt: f'ldu{space}{vec}.{t} {(m.vd(rt, int(vec[2])) if vec else m.d(rt))}, [{space_addr(m, space)}]')
for space in ['', '.global', '.local']:
    for lvl in ['.L1', '.L2']:
        add('prefetch', f'prefetch{space}{lvl}', lambda m, n=f'prefetch{space}{lvl}', space=space: f'{n} [{space_addr(m, space)}]')
for ev in ['.L2::evict_last', '.L2::evict_normal']:
    add('prefetch', f'prefetch.global{ev}', lambda m, ev=ev: f'prefetch.global{ev} [%rd2]')
add('prefetchu', 'prefetchu.L1', lambda m: 'prefetchu.L1 [%rd2]')
for prim in ['.L2::evict_last', '.L2::evict_normal', '.L2::evict_first', '.L2::evict_unchanged']:
    add('createpolicy', f'createpolicy.fractional{prim}.b64', lambda m, prim=prim: f'createpolicy.fractional{prim}.b64 {m.d("b64")}, 0.25')
    add('createpolicy', f'createpolicy.fractional{prim}.L2::evict_first.b64', lambda m, prim=prim: f'createpolicy.fractional{prim}.L2::evict_first.b64 {m.d("b64")}, 1.0') if prim in ('.L2::evict_last', '.L2::evict_normal') else None
    add('createpolicy', f'createpolicy.range{prim}.L2::evict_first.b64', lambda m, prim=prim: f'createpolicy.range{prim}.L2::evict_first.b64 {m.d("b64")}, [%rd2], 64, 128') if prim in ('.L2::evict_last', '.L2::evict_normal') else None
add('createpolicy', 'createpolicy.cvt.L2.b64', lambda m: f'createpolicy.cvt.L2.b64 {m.d("b64")}, {m.s("b32")}')
add('createpolicy', 'createpolicy.fractional.L2::evict_last.b64 (no fraction)', lambda m: f'createpolicy.fractional.L2::evict_last.b64 {m.d("b64")}')
add('discard', 'discard.global.L2', lambda m: 'discard.global.L2 [%rd2], 128')
add('applypriority', 'applypriority.global.L2::evict_normal', lambda m: 'applypriority.global.L2::evict_normal [%rd2], 128')
for space in ['.global', '.shared', '.local', '.const', '.param']:
    for size in ['u32', 'u64']:
        def fc(m, space=space, size=size):
            a = space_addr(m, space)
            rd = m.reg(size)
            return [f'cvta{space}.{size} {rd}, {a}', f'cvta.to{space}.{size} {m.d(size)}, {rd}']
        add('cvta', f'cvta{space}.{size} / cvta.to{space}.{size}', fc)
        add('cvta', f'cvta.to{space}.{size} (reg)', lambda m, space=space, size=size: f'cvta.to{space}.{size} {m.d(size)}, {m.s(size)}')
# cvt
CVT_INT = ['u8', 'u16', 'u32', 'u64', 's8', 's16', 's32', 's64']
CVT_F = ['f16', 'f32', 'f64', 'bf16']
for dt in CVT_INT + CVT_F:
    for st in CVT_INT + CVT_F:
        drt = REGFOR.get(dt, dt)
        srt = REGFOR.get(st, st)
        d_f, s_f = dt in CVT_F, st in CVT_F
        if d_f and s_f:
            if SIZE[dt] < SIZE[st] or (dt == 'bf16' and st == 'f16') or (dt == 'f16' and st == 'bf16'):
                rnds = RND
            elif dt == st:
                rnds = opt('.rni', '.rzi', '.rmi', '.rpi')
            else:
                rnds = ['']
        elif d_f:
            rnds = RND
        elif s_f:
            rnds = ['.rni', '.rzi', '.rmi', '.rpi']
        else:
            rnds = ['']
        for r in rnds:
            for f in (opt('.ftz') if 'f32' in (dt, st) else ['']):
                for s in opt('.sat'):
                    n = f'cvt{r}{f}{s}.{dt}.{st}'
                    add('cvt', n, lambda m, n=n, drt=drt, srt=srt: f'{n} {m.d(drt)}, {m.s(srt)}')
for r in RND:
    for rl in opt('.relu'):
        for sat in opt('.satfinite'):
            for dt in ['f16x2', 'bf16x2']:
                n = f'cvt{r}{rl}{sat}.{dt}.f32'
                add('cvt', n, lambda m, n=n, dt=dt: f'{n} {m.d(dt)}, {m.s("f32")}, {m.s("f32")}')
            for dt in ['f16', 'bf16']:
                n = f'cvt{r}{rl}{sat}.{dt}.f32'
                add('cvt', n, lambda m, n=n, dt=dt: f'{n} {m.d(dt)}, {m.s("f32")}')
for r in ['.rna']:
    add('cvt', 'cvt.rna.tf32.f32', lambda m: f'cvt.rna.tf32.f32 {m.d("b32")}, {m.s("f32")}')
    for r in ['.rn', '.rz']:
        for rl in opt('.relu'):
            add('cvt', f'cvt{r}{rl}.tf32.f32', lambda m, n=f'cvt{r}{rl}.tf32.f32': f'{n} {m.d("b32")}, {m.s("f32")}')
    add('cvt', 'cvt.rna.satfinite.tf32.f32', lambda m: f'cvt.rna.satfinite.tf32.f32 {m.d("b32")}, {m.s("f32")}')
add('cvt', 'cvt.rn.satfinite.e4m3x2.f32', lambda m: f'cvt.rn.satfinite.e4m3x2.f32 {m.d("b16")}, {m.s("f32")}, {m.s("f32")}')
add('cvt', 'cvt.rn.f16x2.e4m3x2', lambda m: f'cvt.rn.f16x2.e4m3x2 {m.d("b32")}, {m.s("b16")}')
for dt in ['u16', 's16', 'u8', 's8']:
    add('cvt.pack', f'cvt.pack.sat.{dt}.s32', lambda m, dt=dt: f'cvt.pack.sat.{dt}.s32 {m.d("b32")}, {m.s("s32")}, {m.s("s32")}') if dt in ('u16', 's16') else None
    if dt in ('u8', 's8'):
        add('cvt.pack', f'cvt.pack.sat.{dt}.s32.b32', lambda m, dt=dt: f'cvt.pack.sat.{dt}.s32.b32 {m.d("b32")}, {m.s("s32")}, {m.s("s32")}, {m.s("b32")}')
add('cvt.pack', 'cvt.pack.sat.u4.s32.b32', lambda m: f'cvt.pack.sat.u4.s32.b32 {m.d("b32")}, {m.s("s32")}, {m.s("s32")}, {m.s("b32")}')
add('cvt.pack', 'cvt.pack.sat.s4.s32.b32', lambda m: f'cvt.pack.sat.s4.s32.b32 {m.d("b32")}, {m.s("s32")}, {m.s("s32")}, {m.s("b32")}')
# cp.async
for cop, sizes in [('ca', [4, 8, 16]), ('cg', [16])]:
    for size in sizes:
        for extra in ['', ', src', ', imm-src', ' L2::cache_hint', ' L2::128B', ' L2::256B']:
            def fca(m, cop=cop, size=size, extra=extra):
                space_addr(m, '.shared')
                mods = ''
                tail = ''
                if extra == ', src':
                    tail = f', {m.s("u32")}'
                elif extra == ', imm-src':
                    tail = ', 4'
                elif extra == ' L2::cache_hint':
                    mods = '.L2::cache_hint'
                    tail = f', {m.s("b64")}'
                elif extra:
                    mods = '.' + extra.strip()
                return [f'cp.async.{cop}.shared.global{mods} [sbuf], [%rd2], {size}{tail}', 'cp.async.commit_group', 'cp.async.wait_group 0',
                        f'ld.shared.u32 {m.d("u32")}, [sbuf]']
            add('cp.async', f'cp.async.{cop}.shared.global{extra} {size}', fca)
add('cp.async', 'cp.async.wait_all', lambda m: [f'cp.async.ca.shared.global [{space_addr(m, ".shared")}], [%rd2], 4', 'cp.async.wait_all'])
add('cp.async', 'cp.async.ca.shared.global generic-free reg address', lambda m: [f'mov.u32 {(r := m.reg("u32"))}, {space_addr(m, ".shared")}', f'cp.async.ca.shared.global [{r}], [%rd2], 4', 'cp.async.wait_all'])
# mapa / getctarank (sm_90)
add('mapa', 'mapa.u64', lambda m: f'mapa.u64 {m.d("u64")}, {m.s("u64")}, {m.s("u32")}')
add('mapa', 'mapa.shared::cluster.u32', lambda m: f'mapa.shared::cluster.u32 {m.d("u32")}, {m.s("u32")}, {m.s("u32")}')
add('getctarank', 'getctarank.u64', lambda m: f'getctarank.u64 {m.d("u32")}, {m.s("u64")}')
add('getctarank', 'getctarank.shared::cluster.u32', lambda m: f'getctarank.shared::cluster.u32 {m.d("u32")}, {m.s("u32")}')
# ldmatrix
for num in ['.x1', '.x2', '.x4']:
    for tr in opt('.trans'):
        n = {'.x1': 1, '.x2': 2, '.x4': 4}[num]
        add('ldmatrix', f'ldmatrix.sync.aligned.m8n8{num}{tr}.shared.b16', lambda m, num=num, tr=tr, n=n: f'ldmatrix.sync.aligned.m8n8{num}{tr}.shared.b16 {m.vd("b32", n)}, [{space_addr(m, ".shared")}]')
# ---------------- 9.7.11 control flow ----------------
add('bra', 'bra', lambda m: ['bra L1', 'L1:'])
add('bra', '@!p bra.uni', lambda m: [f'@!{m.s("pred")} bra.uni L1', f'st.global.u32 [%rd2], 1', 'L1:'])
add('call', 'call.uni', lambda m: (m.scope.append('.func f()\n{\n    ret;\n}'), ['call.uni f'])[1])
add('call', 'call (ret), f, (arg)', lambda m: (m.scope.append('.func (.param .b32 r) g(.param .b32 a)\n{\n    .reg .b32 %t;\n    ld.param.b32 %t, [a];\n    st.param.b32 [r], %t;\n    ret;\n}'), [
    '{', '.param .b32 pa', '.param .b32 pr', f'st.param.b32 [pa], {m.s("b32")}', 'call (pr), g, (pa)', f'ld.param.b32 {m.d("b32")}, [pr]', '}'])[1])
add('exit', 'exit', lambda m: [f'@{m.s("pred")} exit'])
add('ret', 'ret', lambda m: [f'@{m.s("pred")} ret'])
# ---------------- 9.7.12 parallel sync ----------------
for b in ['bar.sync 0', 'bar.sync 1, 64', 'bar.cta.sync 0', 'bar.cta.sync 0, 32', 'barrier.sync 0', 'barrier.sync.aligned 0', 'barrier.cta.sync 0',
          'barrier.cta.sync.aligned 0', 'barrier.sync 0, 64', 'bar.warp.sync -1', 'bar.cta.arrive 1, 64', 'bar.arrive 1, 64',
          'barrier.arrive 1, 64', 'barrier.cta.arrive.aligned 1, 64', 'barrier.arrive.aligned 1, 32']:
    add('bar', b, lambda m, b=b: b)
for form in ['bar.red.popc.u32', 'bar.cta.red.popc.u32', 'barrier.red.popc.u32', 'barrier.red.popc.aligned.u32', 'barrier.cta.red.popc.aligned.u32']:
    add('bar.red', form, lambda m, form=form: f'{form} {m.d("u32")}, 0, {m.s("pred")}')
for op in ['and', 'or']:
    for form in [f'bar.red.{op}.pred', f'barrier.red.{op}.pred', f'barrier.cta.red.{op}.aligned.pred']:
        add('bar.red', form, lambda m, form=form: f'{form} {m.d("pred")}, 0, !{m.s("pred")}')
add('bar.red', 'bar.red.popc.u32 with thread count', lambda m: f'bar.red.popc.u32 {m.d("u32")}, 1, 64, {m.s("pred")}')
for f in ['membar.cta', 'membar.gl', 'membar.sys', 'membar.proxy.alias', 'fence.sc.cta', 'fence.sc.gpu', 'fence.sc.sys', 'fence.acq_rel.cta', 'fence.acq_rel.gpu', 'fence.acq_rel.sys',
          'fence.sc.cluster', 'fence.acq_rel.cluster', 'fence.proxy.alias', 'fence.proxy.async', 'fence.proxy.async.global', 'fence.proxy.async.shared::cta', 'fence.proxy.async.shared::cluster',
          'fence.mbarrier_init.release.cluster', 'fence.cta', 'fence.gpu', 'fence.sys']:
    add('fence', f, lambda m, f=f: [f'ld.global.u32 {m.reg("u32")}, [%rd2]', f])
ATOM_OPS = {
    'and': ['b32', 'b64'], 'or': ['b32', 'b64'], 'xor': ['b32', 'b64'],
    'cas': ['b32', 'b64', 'b16'], 'exch': ['b32', 'b64'],
    'add': ['u32', 's32', 'u64', 'f32', 'f64', 's64'], 'inc': ['u32'], 'dec': ['u32'],
    'min': ['u32', 's32', 'u64', 's64'], 'max': ['u32', 's32', 'u64', 's64'],
}
for space in ['', '.global', '.shared']:
    for op, types in ATOM_OPS.items():
        for t in types:
            for sem, scope in [('', ''), ('.relaxed', '.gpu'), ('.acquire', '.gpu'), ('.release', '.cta'), ('.acq_rel', '.sys'), ('', '.cta'), ('', '.sys'), ('.relaxed', ''), ('.acq_rel', '.cluster')]:
                if (sem or scope) and not (op == 'add' and t in ('u32', 'f32')) and not (op == 'cas' and t == 'b32'):
                    if (sem, scope) not in [('', '.sys'), ('.acq_rel', '.sys')]:
                        continue
                nsrc = 2 if op == 'cas' else 1
                def fa(m, space=space, op=op, t=t, sem=sem, scope=scope, nsrc=nsrc):
                    a = space_addr(m, space)
                    srcs = ', '.join(m.s(t) for _ in range(nsrc))
                    return f'atom{sem}{scope}{space}.{op}.{t} {m.d(t)}, [{a}], {srcs}'
                add('atom', f'atom{sem}{scope}{space}.{op}.{t}', fa)
                if op not in ('cas', 'exch'):
                    def fr(m, space=space, op=op, t=t, sem=sem, scope=scope):
                        return f'red{sem.replace("acquire", "release")}{scope}{space}.{op}.{t} [{space_addr(m, space)}], {m.s(t)}'
                    add('red', f'red{sem.replace("acquire", "release")}{scope}{space}.{op}.{t}', fr)
    for t in ['f16', 'f16x2', 'bf16', 'bf16x2']:
        add('atom', f'atom{space}.add.noftz.{t}', lambda m, space=space, t=t: f'atom{space}.add.noftz.{t} {m.d(t)}, [{space_addr(m, space)}], {m.s(t)}')
        add('red', f'red{space}.add.noftz.{t}', lambda m, space=space, t=t: f'red{space}.add.noftz.{t} [{space_addr(m, space)}], {m.s(t)}')
    add('atom', f'atom{space}.exch.b16?', lambda m, space=space: f'atom{space}.exch.b16 {m.d("b16")}, [{space_addr(m, space)}], {m.s("b16")}')
    add('atom', f'atom{space}.add.u64 imm', lambda m, space=space: f'atom{space}.add.u64 {m.d("u64")}, [{space_addr(m, space)}], 1')
    add('atom', f'atom{space}.L2::cache_hint.add.u32', lambda m, space=space: f'atom{space}.add.L2::cache_hint.u32 {m.d("u32")}, [{space_addr(m, space)}], {m.s("u32")}, {m.s("b64")}')
    add('atom', f'atom{space}.inc.u32 offset', lambda m, space=space: f'atom{space}.inc.u32 {m.d("u32")}, [{space_addr(m, space)}+4], {m.s("u32")}')
for mode in ['all', 'any', 'uni']:
    add('vote', f'vote.sync.{mode}.pred', lambda m, mode=mode: f'vote.sync.{mode}.pred {m.d("pred")}, {m.s("pred")}, -1')
    add('vote', f'vote.sync.{mode}.pred !p', lambda m, mode=mode: f'vote.sync.{mode}.pred {m.d("pred")}, !{m.s("pred")}, {m.s("b32")}')
add('vote', 'vote.sync.ballot.b32', lambda m: f'vote.sync.ballot.b32 {m.d("b32")}, {m.s("pred")}, 0xffffffff')
add('vote', 'vote.sync.ballot.b32 !p', lambda m: f'vote.sync.ballot.b32 {m.d("b32")}, !{m.s("pred")}, 0xffffffff')
for t in ['b32', 'b64']:
    add('match', f'match.any.sync.{t}', lambda m, t=t: f'match.any.sync.{t} {m.d("b32")}, {m.s(t)}, -1')
    add('match', f'match.all.sync.{t}', lambda m, t=t: f'match.all.sync.{t} {m.d("b32")}, {m.s(t)}, -1')
    add('match', f'match.all.sync.{t} d|p', lambda m, t=t: f'match.all.sync.{t} {m.d("b32")}|{m.d("pred")}, {m.s(t)}, -1')
add('activemask', 'activemask.b32', lambda m: f'activemask.b32 {m.d("b32")}')
for op, types in [('add', ['u32', 's32']), ('min', ['u32', 's32']), ('max', ['u32', 's32']), ('and', ['b32']), ('or', ['b32']), ('xor', ['b32'])]:
    for t in types:
        add('redux', f'redux.sync.{op}.{t}', lambda m, op=op, t=t: f'redux.sync.{op}.{t} {m.d(t)}, {m.s(t)}, -1')
# mbarrier (non-SPIR-V gaps belong to spirvsync, but probe cpu/nvptx/amdgpu)
for form in ['mbarrier.init.shared.b64 [sbuf], 1', 'mbarrier.init.b64 [%rd2], 1', 'mbarrier.inval.shared.b64 [sbuf]', 'mbarrier.expect_tx.shared.b64 [sbuf], 4',
             'mbarrier.complete_tx.shared.b64 [sbuf], 4', 'mbarrier.arrive.expect_tx.shared.b64 _, [sbuf], 4', 'mbarrier.arrive.release.cta.shared.b64 _, [sbuf]',
             'mbarrier.arrive.shared::cta.b64 _, [sbuf]', 'mbarrier.try_wait.parity.shared.b64 P, [sbuf], 0', 'mbarrier.try_wait.shared.b64 P, [sbuf], STATE',
             'mbarrier.test_wait.shared.b64 P, [sbuf], STATE', 'mbarrier.arrive.shared.b64 STATE, [sbuf], 1', 'cp.async.mbarrier.arrive.shared.b64 [sbuf]',
             'cp.async.mbarrier.arrive.noinc.shared.b64 [sbuf]', 'mbarrier.try_wait.parity.acquire.cta.shared.b64 P, [sbuf], 0, 1000']:
    def fm(m, form=form):
        space_addr(m, '.shared')
        s = form
        if 'STATE' in s:
            s = s.replace('STATE', m.s('b64'))
        if 'P,' in s:
            s = s.replace('P,', m.d('pred') + ',')
        return s
    add('mbarrier', form.split(' ')[0], fm)
add('griddepcontrol', 'griddepcontrol.wait', lambda m: 'griddepcontrol.wait')
add('griddepcontrol', 'griddepcontrol.launch_dependents', lambda m: 'griddepcontrol.launch_dependents')
add('elect', 'elect.sync', lambda m: f'elect.sync {m.d("b32")}|{m.d("pred")}, -1')
add('setmaxnreg', 'setmaxnreg.inc.sync.aligned.u32 64', lambda m: 'setmaxnreg.inc.sync.aligned.u32 64')
# ---------------- 9.7.13 mma ----------------
MMA = [
    ('m16n8k8', 'f16', 'f16', 'f16', 'f16', 2, 1, 2, 2), ('m16n8k8', 'f32', 'f16', 'f16', 'f32', 4, 2, 1, 4),
    ('m16n8k16', 'f16', 'f16', 'f16', 'f16', 2, 4, 2, 2), ('m16n8k16', 'f32', 'f16', 'f16', 'f32', 4, 4, 2, 4),
    ('m16n8k16', 'f32', 'bf16', 'bf16', 'f32', 4, 4, 2, 4), ('m16n8k8', 'f32', 'bf16', 'bf16', 'f32', 4, 2, 1, 4),
    ('m16n8k8', 'f32', 'tf32', 'tf32', 'f32', 4, 4, 2, 4), ('m16n8k4', 'f32', 'tf32', 'tf32', 'f32', 4, 2, 1, 4),
    ('m8n8k4', 'f64', 'f64', 'f64', 'f64', 2, 1, 1, 2), ('m8n8k4', 'f16', 'f16', 'f16', 'f16', 4, 2, 2, 4),
    ('m16n8k16', 's32', 's8', 's8', 's32', 4, 2, 1, 4), ('m16n8k32', 's32', 'u8', 's8', 's32', 4, 4, 2, 4),
    ('m8n8k16', 's32', 's8', 's8', 's32', 2, 1, 1, 2), ('m8n8k32', 's32', 's4', 's4', 's32', 2, 1, 1, 2),
    ('m16n8k32', 's32', 's4', 'u4', 's32', 4, 2, 1, 4), ('m16n8k64', 's32', 'u4', 'u4', 's32', 4, 4, 2, 4),
    ('m8n8k128', 's32', 'b1', 'b1', 's32', 2, 1, 1, 2), ('m16n8k128', 's32', 'b1', 'b1', 's32', 4, 2, 1, 4),
]
for shape, dt, at, bt, ct, nd, na, nb, nc in MMA:
    def reg_of(t):
        return {'f16': 'b32', 'f32': 'f32', 'f64': 'f64', 's32': 's32'}.get(t, 'b32')
    for sat in (opt('.satfinite') if dt == 's32' else ['']):
        pop = '.and.popc' if at == 'b1' else ''
        xor = '.xor.popc'
        n = f'mma.sync.aligned.{shape}.row.col{sat}.{dt}.{at}.{bt}.{ct}'
        if at == 'b1':
            n = f'mma.sync.aligned.{shape}.row.col.{dt}.{at}.{bt}.{ct}.and.popc'
        add('mma', n, lambda m, n=n, dt=dt, ct=ct, at=at, bt=bt, nd=nd, na=na, nb=nb, nc=nc: f'{n} {m.vd(reg_of(dt), nd)}, {m.vs(reg_of(at) if at != "f64" else "f64", na)}, {m.vs(reg_of(bt) if bt != "f64" else "f64", nb)}, {m.vs(reg_of(ct), nc)}')
# ---------------- 9.7.14 video ----------------
for op in ['vadd', 'vsub', 'vabsdiff', 'vmin', 'vmax']:
    for dt, at, bt in [('u32', 'u32', 'u32'), ('s32', 's32', 's32'), ('s32', 'u32', 's32')]:
        for sat in opt('.sat'):
            for sec in opt('.add', '.min', '.max'):
                if sec and sat:
                    continue
                n = f'{op}.{dt}.{at}.{bt}{sat}{sec}'
                add(op, n, lambda m, n=n, sec=sec: f'{n} {m.d("u32")}, {m.s("u32")}, {m.s("u32")}' + (f', {m.s("u32")}' if sec else ''))
        add(op, f'{op}.{dt}.{at}.{bt} selectors', lambda m, n=f'{op}.{dt}.{at}.{bt}': f'{n} {m.d("u32")}.b1, {m.s("u32")}.h1, {m.s("u32")}.b3, {m.s("u32")}')
for op in ['vshl', 'vshr']:
    for mode in ['.clamp', '.wrap']:
        for dt in ['u32', 's32']:
            n = f'{op}.{dt}.{dt}.u32{mode}'
            add(op, n, lambda m, n=n: f'{n} {m.d("u32")}, {m.s("u32")}, {m.s("u32")}')
add('vmad', 'vmad.s32.s32.s32.sat', lambda m: f'vmad.s32.s32.s32.sat {m.d("u32")}, {m.s("u32")}, {m.s("u32")}, {m.s("u32")}')
add('vmad', 'vmad.u32.u32.u32.shr7', lambda m: f'vmad.u32.u32.u32.shr7 {m.d("u32")}, {m.s("u32")}, {m.s("u32")}, {m.s("u32")}')
add('vmad', 'vmad.s32.u32.s32.po', lambda m: f'vmad.s32.u32.s32.po {m.d("u32")}, {m.s("u32")}, {m.s("u32")}, {m.s("u32")}')
add('vmad', 'vmad.s32.s32.s32 -a', lambda m: f'vmad.s32.s32.s32 {m.d("u32")}, -{m.s("u32")}, {m.s("u32")}, {m.s("u32")}')
for c in ['eq', 'ne', 'lt', 'le', 'gt', 'ge']:
    add('vset', f'vset.u32.u32.{c}', lambda m, c=c: f'vset.u32.u32.{c} {m.d("u32")}, {m.s("u32")}, {m.s("u32")}')
for op in ['vadd2', 'vsub2', 'vavrg2', 'vabsdiff2', 'vmin2', 'vmax2', 'vadd4', 'vsub4', 'vavrg4', 'vabsdiff4', 'vmin4', 'vmax4']:
    for dt, at, bt in [('u32', 'u32', 'u32'), ('s32', 's32', 's32'), ('s32', 'u32', 's32')]:
        for sat in opt('.sat'):
            n = f'{op}.{dt}.{at}.{bt}{sat}'
            add(op, n, lambda m, n=n: f'{n} {m.d("u32")}, {m.s("u32")}, {m.s("u32")}, {m.s("u32")}')
        n = f'{op}.{dt}.{at}.{bt}.add'
        add(op, n, lambda m, n=n: f'{n} {m.d("u32")}, {m.s("u32")}, {m.s("u32")}, {m.s("u32")}')
for op in ['vset2', 'vset4']:
    for c in ['eq', 'ne', 'lt', 'le', 'gt', 'ge']:
        add(op, f'{op}.s32.s32.{c}', lambda m, op=op, c=c: f'{op}.s32.s32.{c} {m.d("u32")}, {m.s("u32")}, {m.s("u32")}, {m.s("u32")}')
        add(op, f'{op}.u32.u32.{c}.add', lambda m, op=op, c=c: f'{op}.u32.u32.{c}.add {m.d("u32")}, {m.s("u32")}, {m.s("u32")}, {m.s("u32")}')
# ---------------- 9.7.15 misc ----------------
add('brkpt', 'brkpt', lambda m: f'@{m.s("pred")} brkpt')
add('nanosleep', 'nanosleep.u32 reg', lambda m: f'nanosleep.u32 {m.s("u32")}')
add('nanosleep', 'nanosleep.u32 imm', lambda m: 'nanosleep.u32 100')
add('pmevent', 'pmevent 1', lambda m: 'pmevent 1')
add('pmevent', 'pmevent.mask 0x3', lambda m: 'pmevent.mask 0x3')
add('trap', 'trap', lambda m: f'@{m.s("pred")} trap')
# ---------------- chapter 10 special registers ----------------
SREG32 = ['%tid.x', '%tid.y', '%tid.z', '%ntid.x', '%ntid.y', '%ntid.z', '%laneid', '%warpid', '%nwarpid', '%ctaid.x', '%ctaid.y', '%ctaid.z',
          '%nctaid.x', '%nctaid.y', '%nctaid.z', '%smid', '%nsmid', '%lanemask_eq', '%lanemask_le', '%lanemask_lt', '%lanemask_ge', '%lanemask_gt',
          '%clock', '%clock_hi', '%pm0', '%pm7', '%envreg0', '%envreg31', '%globaltimer_lo', '%globaltimer_hi', '%total_smem_size', '%dynamic_smem_size',
          '%aggr_smem_size', '%reserved_smem_offset_begin', '%reserved_smem_offset_end', '%reserved_smem_offset_cap', '%cluster_ctarank', '%cluster_nctarank',
          '%clusterid.x', '%nclusterid.x', '%cluster_ctaid.x', '%cluster_nctaid.x', '%is_explicit_cluster', '%warpsz', 'WARP_SZ']
for r in SREG32:
    add('sreg', f'mov.u32 {r}', lambda m, r=r: f'mov.u32 {m.d("u32")}, {r}')
for r in ['%clock64', '%globaltimer', '%gridid', '%pm0_64', '%reserved_smem_offset_0']:
    add('sreg', f'mov.u64 {r}', lambda m, r=r: f'mov.u64 {m.d("u64")}, {r}')
add('sreg', 'mov.u16 %tid.x', lambda m: f'mov.u16 {m.d("u16")}, %tid.x')
add('sreg', 'cvt.u32.u16 %tid.x (old nvcc)', lambda m: f'cvt.u32.u16 {m.d("u32")}, %tid.x')
add('sreg', 'mov.pred %is_explicit_cluster', lambda m: f'mov.pred {m.d("pred")}, %is_explicit_cluster')
add('sreg', 'add.u32 with %ntid.x operand', lambda m: f'add.u32 {m.d("u32")}, %ntid.x, {m.s("u32")}')

os.makedirs(OUT, exist_ok=True)
seen = set()
with open(os.path.join(OUT, 'combos.tsv'), 'w') as f:
    for i, (fam, name, src) in enumerate(COMBOS):
        if (fam, name) in seen:
            continue
        seen.add((fam, name))
        path = os.path.join(OUT, f'{i:05d}.ptx')
        with open(path, 'w') as g:
            g.write(src)
        f.write(f'{fam}\t{name}\t{path}\n')
print(len(seen), 'combos')
