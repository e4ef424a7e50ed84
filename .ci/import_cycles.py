"""File-level import cycles of Rust crates (docs/architecture.md, "Files").

An edge A -> B is a `use` (not a `pub use`: re-exports are followed to the file that defines the
item) or an inline `crate::`/`super::` path in file A that names an item of file B. Test-only
code (`#[cfg(test)]` imports and modules) is skipped. Prints every strongly connected component
of more than one file and exits 1 if there is one.

Usage: python3 .ci/import_cycles.py SRC_DIR [SRC_DIR ...]
"""
import os, re, sys

def crate_files(src):
    mods = {}
    for root, _, fs in os.walk(src):
        for f in fs:
            if not f.endswith('.rs'): continue
            p = os.path.join(root, f); rel = os.path.relpath(p, src)[:-3].split(os.sep)
            if rel[-1] in ('mod', 'lib', 'main'): rel = rel[:-1]
            mods[tuple(rel)] = p
    return mods
def uses(text):
    text = re.sub(r'//[^\n]*', '', text)
    # drop #[cfg(test)] mod blocks / items
    text = re.sub(r'#\[cfg\(test\)\]\s*(pub\s+)?use[^;]*;', '', text)
    i = re.search(r'#\[cfg\(test\)\]\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+\w+\s*\{', text)
    if i: text = text[:i.start()]
    out = []
    for m in re.finditer(r'(^|\n)\s*(pub(\([^)]*\))?\s+)?use\s+([^;]*);', text):
        if m.group(2): continue
        out.append(m.group(4))
    # inline paths crate::a::b
    for m in re.finditer(r'\b(crate|super)((?:::\w+)+)', text):
        out.append(m.group(1) + m.group(2))
    return out
def expand(u):
    u = re.sub(r'\s+', '', u)
    m = re.match(r'^(.*?)::\{(.*)\}$', u)
    if not m: return [u]
    pre, body = m.groups(); parts, depth, cur = [], 0, ''
    for ch in body:
        if ch == '{': depth += 1
        if ch == '}': depth -= 1
        if ch == ',' and depth == 0: parts.append(cur); cur = ''
        else: cur += ch
    if cur: parts.append(cur)
    res = []
    for p in parts: res += expand(pre + '::' + p)
    return res
REEXP = {}
def reexports(mods):
    for m, p in mods.items():
        t = re.sub(r'//[^\n]*', '', open(p).read()); d = {}
        for mm in re.finditer(r'(^|\n)\s*pub(\([^)]*\))?\s+use\s+([^;]*);', t):
            for e in expand(re.sub(r'\s+', '', mm.group(3))):
                name = e.split('::')[-1]
                if ' as ' in e or 'as' in name: continue
                d.setdefault(name, e)
        REEXP[m] = d
def resolve(mod, path, mods, isdir, depth=0):
    t = resolve0(mod, path, mods, isdir)
    if t is None or depth > 8: return t
    segs = path.split('::'); full = None
    # the item name right after the resolved module
    name = segs[-1]
    if name in REEXP.get(t, {}) and name != '*':
        r = resolve(t, REEXP[t][name], mods, True, depth + 1)
        if r is not None: return r
    return t
def resolve0(mod, path, mods, isdir):
    segs = path.split('::'); cur = list(mod) if isdir else list(mod)
    base = list(mod)
    if segs[0] == 'crate': base = []; segs = segs[1:]
    elif segs[0] == 'super':
        while segs and segs[0] == 'super': base = base[:-1]; segs = segs[1:]
    elif segs[0] == 'self': segs = segs[1:]
    else:
        # relative child module
        if tuple(base + [segs[0]]) not in mods: return None
    full = base + segs
    for k in range(len(full), -1, -1):
        if tuple(full[:k]) in mods: return tuple(full[:k])
    return None
def main(src):
    mods = crate_files(src); g = {m: set() for m in mods}; reexports(mods)
    for m, p in mods.items():
        isdir = p.endswith(('mod.rs', 'lib.rs', 'main.rs'))
        for u in uses(open(p).read()):
            for e in expand(u):
                t = resolve(m, e, mods, isdir)
                if t is not None and t != m: g[m].add(t)
    # SCCs
    idx, low, st, on, res, c = {}, {}, [], set(), [], [0]
    sys.setrecursionlimit(10000)
    def sc(v):
        idx[v] = low[v] = c[0]; c[0] += 1; st.append(v); on.add(v)
        for w in g[v]:
            if w not in idx: sc(w); low[v] = min(low[v], low[w])
            elif w in on: low[v] = min(low[v], idx[w])
        if low[v] == idx[v]:
            comp = []
            while True:
                w = st.pop(); on.discard(w); comp.append(w)
                if w == v: break
            if len(comp) > 1: res.append(comp)
    for v in g:
        if v not in idx: sc(v)
    for comp in res:
        FOUND.append(comp)
        print('import cycle in', src + ':', ' <-> '.join('/'.join(x) or 'lib' for x in comp))
FOUND = []
for s in sys.argv[1:]: main(s)
if FOUND: sys.exit(1)
print('no import cycle in', len(sys.argv) - 1, 'source trees')
