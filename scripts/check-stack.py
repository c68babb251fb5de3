#!/usr/bin/env python3
"""Worst-case stack depth of zmote's publish and receive paths, from gcc's own figures.

Reads the per-function frames of -fstack-usage (.su) and the call graphs of
-fcallgraph-info=su (.ci, one VCG graph per translation unit), joins the graphs across units,
gives every indirect call (link operations, closures, callbacks) the functions it can reach,
and sums the frames along the deepest chain from each root. A recursive cycle, a frame of
unbounded (dynamic) size, a call into a function that has no frame and is not the C library's,
or an indirect call whose targets are unknown makes the depth unknowable: each is an error,
never a silent zero. Every walk visits each function once (however many paths lead to it), so
the check takes time and memory linear in the call graph. scripts/check-stack.sh compiles the
library and calls this; it is plain Python 3 with the standard library only.

Indirect calls are resolved from the sources. gcc names the place of each call through a pointer
(file:line:column); the expression there ends in a member (`l->ops->write`, `sub->fn`) or a
local name (`fn`, `op`). A member reaches every function stored into a member of that name
anywhere in the sources: `.write = tcp_write` in an initializer, `t->on_message = f` in code.
When what is stored or called is a parameter of the enclosing function, the arguments passed for
it at every call of that function are followed in turn; a parameter of a public function
(declared under include/) may also carry a function of the application, counted as
APP_FUNCTION_BYTES. What this does not see (a struct initialised by position, a macro) is named
in INDIRECT_TABLE below.
"""

import argparse
import os
import re
import sys
from collections import defaultdict

# ---- the bounds and allowances: the one place they live ---------------------------------------

# Worst-case stack of each root, in bytes, on Cortex-M4 (-Os): the deepest chain of all it may
# call, the link write and local subscribers for a put, the subscriber's callback, answers and
# accepting newcomers for a read, a dropped peer's CLOSE and a warning's log line for both.
# These are the goals the library is designed to (a publish within 1 KiB, a receive within
# 1.5 KiB, what a small RTOS task's stack leaves the library), not the last figures measured:
# within them, a clearer change wins over a smaller frame.
BOUNDS = {
    "z_put": 1024,            # publish
    "z_publisher_put": 1024,  # publish
    "zp_read": 1536,          # receive
}

# A function the application hands in (a subscriber's callback, an allocator hook, a deleter) is
# not ours to measure: it counts as this many bytes, and the report prints, per root and per
# place such a function is called from, the depth at which it is entered and the allowance the
# bound leaves it. The port's functions count with the frames of the port compiled alongside
# (the stand-in port's are empty): a real port's own depth below a socket call comes on top.
APP_FUNCTION_BYTES = 0

# Functions of the C library (and gcc's helpers) have no .su of ours; each counts as this much.
LIBC_CALL_BYTES = 32
LIBC_FUNCTIONS = {
    "memcpy", "memmove", "memset", "memcmp", "memchr", "strlen", "strnlen", "strchr", "strrchr",
    "strcmp", "strncmp", "strcspn", "strspn", "strcpy", "abort", "malloc", "free",
}

# What a board gives the bare-metal port by name (port/baremetal/zmote_board.h: the tick, idle, the
# UART lookup, the console) is the application's code, small leaves by contract; each call counts
# as this much. The UART drivers it hands back are reached through pointers: see INDIRECT_TABLE.
BOARD_CALL_BYTES = 32
BOARD_PREFIXES = ("zm_board_",)
LIBC_PREFIXES = ("__aeabi_", "__gnu_", "__builtin_", "__atomic_", "__sync_")

# Indirect calls the source scan cannot follow: the expression called at the site (as written,
# spaces removed) -> the functions it may reach. APP stands for a function of the application.
APP = "<application>"
INDIRECT_TABLE = {
    # util/alloc.c: the hooks start as {port_alloc, port_free} (a positional initializer) and
    # zm_allocator_set may install the application's own.
    "current.alloc": ["port_alloc", APP],
    "current.free": ["port_free", APP],
    # api/sample.c: z_closure_*_drop, written by a macro, call the closure's drop.
    "CLOSURE_FUNCTIONS": ["channel_close", APP],
    # port/baremetal/serial.c: a board UART's driver (zm_board_uart_t), the board's and so the
    # application's own code. A key may name its file, for an expression too common to be global.
    "port/baremetal/serial.c:u->open": [APP],
    "port/baremetal/serial.c:s->uart->read": [APP],
    "port/baremetal/serial.c:s->uart->readable": [APP],
    "port/baremetal/serial.c:s->uart->write": [APP],
    "port/baremetal/serial.c:s->uart->close": [APP],
    # session/query.c: a get's drop, kept in a local as the get is freed before it runs; the
    # API's zm_api_get_release is the only one zm_session_get and zm_token_get_open are given.
    "src/session/query.c:drop": ["zm_api_get_release"],
    # api/bytes.c: the holders of a payload's runs are blocks' or deleters' (a deleter is the
    # application's), never runs themselves.
    "src/api/bytes.c:leaf->release": ["block_release", "deleter_release"],
}

# A member name shared by unrelated structs would join their functions (and invent a recursion):
# the expression called -> the member as stored, with the name of the struct member holding it.
INDIRECT_MEMBERS = {
    # api/sample.c: a subscriber's closure, stored as the owned closure's _val (z_closure_sample,
    # the channels), not the session's own sub->drop.
    "c->closure.call": "_val.call",
    "c->closure.drop": "_val.drop",
    # api/query.c: a get's closure, copied out of its context before that is freed.
    "closure.drop": "_val.drop",
    # session/subs.c: a subscriber's own callbacks (the API's bridge), not the closures'.
    "sub->fn": "sub->fn",
    "sub->drop": "sub->drop",
}

# ---- reading gcc's files ------------------------------------------------------------------------

SU_LINE = re.compile(r"^(?P<file>[^:]+):(?P<line>\d+):(?P<col>\d+):(?P<name>\S+)\t(?P<size>\d+)\t(?P<qual>\S+)$")
CI_NODE = re.compile(r'^node: \{ title: "(?P<title>[^"]+)" label: "(?P<label>[^"]*)"')
CI_EDGE = re.compile(r'^edge: \{ sourcename: "(?P<src>[^"]+)" targetname: "(?P<dst>[^"]+)"(?: label: "(?P<loc>[^"]*)")?')
CI_FRAME = re.compile(r"\\n(?P<size>\d+) bytes \((?P<qual>[a-z,]+)\)")

INDIRECT = "__indirect_call"


class Graph:
    """Functions (by the .ci title: 'file.c:name' for a static one, 'name' for an extern one),
    their frames and the calls between them."""

    def __init__(self):
        self.frame = {}            # title -> bytes
        self.qual = {}             # title -> static | dynamic | dynamic,bounded
        self.where = {}            # title -> 'file:line' of its definition
        self.calls = defaultdict(set)      # title -> titles
        self.indirect = defaultdict(list)  # title -> [(file, line, col)]
        self.by_name = defaultdict(set)    # plain name (no clone suffix) -> titles
        self.unit_of = {}          # title -> translation unit (.c file)

    def add_frame(self, title, size, qual, where, unit):
        if title in self.frame and self.frame[title] >= size:
            return
        self.frame[title] = size
        self.qual[title] = qual
        self.where[title] = where
        self.unit_of[title] = unit
        self.by_name[plain_name(title)].add(title)


def plain_name(title):
    """'src/a.c:read_step.constprop.0' -> 'read_step'."""
    if title.startswith(APP):
        return title
    return title.rsplit(":", 1)[-1].split(".", 1)[0]


def read_su(path):
    """Cross-checks the .ci frames with the .su ones (they come from the same compile)."""
    sizes = {}
    with open(path) as f:
        for line in f:
            m = SU_LINE.match(line.rstrip("\n"))
            if m is None:
                raise SystemExit(f"error: {path}: cannot parse: {line.rstrip()}")
            sizes[(m["file"], int(m["line"]), m["name"])] = (int(m["size"]), m["qual"])
    return sizes


def read_ci(path, graph):
    unit = None
    frames = {}
    with open(path) as f:
        for line in f:
            if line.startswith("graph:"):
                m = re.search(r'title: "([^"]+)"', line)
                unit = m.group(1) if m else path
                continue
            m = CI_NODE.match(line)
            if m is not None:
                fm = CI_FRAME.search(m["label"])
                if fm is not None:
                    parts = m["label"].split("\\n")
                    where = parts[1].rsplit(":", 1)[0] if len(parts) > 1 else "?"
                    graph.add_frame(m["title"], int(fm["size"]), fm["qual"], where, unit)
                    frames[(parts[0], where)] = int(fm["size"])
                continue
            m = CI_EDGE.match(line)
            if m is not None:
                if m["dst"] == INDIRECT:
                    loc = (m["loc"] or "").rsplit(":", 2)
                    if len(loc) == 3:
                        graph.indirect[m["src"]].append((loc[0], int(loc[1]), int(loc[2])))
                    else:
                        graph.indirect[m["src"]].append(("?", 0, 0))
                else:
                    graph.calls[m["src"]].add(m["dst"])
    return frames


def load(objdir):
    graph = Graph()
    n = 0
    for root, _, files in os.walk(objdir):
        for name in sorted(files):
            if not name.endswith(".ci"):
                continue
            ci = os.path.join(root, name)
            su = ci[:-3] + ".su"
            if not os.path.exists(su):
                raise SystemExit(f"error: {ci} has no {su}")
            frames = read_ci(ci, graph)
            for (file, line, fname), (size, _) in read_su(su).items():
                if frames.get((fname, f"{file}:{line}")) not in (None, size):
                    raise SystemExit(f"error: {su} and {ci} disagree on {fname}")
            n += 1
    if n == 0:
        raise SystemExit(f"error: no .ci files under {objdir} (compiled with -fcallgraph-info=su?)")
    return graph, n


# ---- reading the sources, for the indirect calls ------------------------------------------------

def strip_c(text):
    """Blanks comments, string and character literals and preprocessor lines, keeping every
    offset (newlines stay), so that braces and parentheses can be counted."""
    out = list(text)
    i, n = 0, len(text)
    at_line_start = True
    while i < n:
        c = text[i]
        if at_line_start and c == "#":
            j = i
            while j < n and text[j] != "\n":
                if text[j] == "\\" and j + 1 < n and text[j + 1] == "\n":
                    j += 1
                j += 1
            for k in range(i, j):
                if out[k] != "\n":
                    out[k] = " "
            i = j
            continue
        if c == "/" and text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
        elif c == "/" and text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            j += 1
        else:
            if c == "\n":
                at_line_start = True
            elif not c.isspace():
                at_line_start = False
            i += 1
            continue
        for k in range(i, min(j, n)):
            if out[k] != "\n":
                out[k] = " "
        i = j
    return "".join(out)


IDENT = re.compile(r"[A-Za-z_]\w*")
KEYWORDS = {"if", "for", "while", "switch", "return", "sizeof", "do", "else", "case", "_Generic",
            "_Static_assert", "defined", "__attribute__", "_Alignof", "alignof"}


def match_paren(s, i):
    """Index just past the parenthesis that closes the one at s[i]."""
    depth = 0
    for j in range(i, len(s)):
        if s[j] in "([{":
            depth += 1
        elif s[j] in ")]}":
            depth -= 1
            if depth == 0:
                return j + 1
    return len(s)


def split_top(s):
    """Splits an argument or parameter list at its top-level commas."""
    parts, depth, start = [], 0, 0
    for j, c in enumerate(s):
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == "," and depth == 0:
            parts.append(s[start:j])
            start = j + 1
    parts.append(s[start:])
    return [p.strip() for p in parts]


def param_name(p):
    m = re.search(r"\(\s*\*\s*([A-Za-z_]\w*)\s*\)", p)  # a function pointer: void (*fn)(...)
    if m:
        return m.group(1)
    names = IDENT.findall(re.sub(r"\[.*?\]", "", p))
    return names[-1] if names and names[-1] != "void" else None


class Source:
    """One file: its stripped text, line offsets and top-level function definitions."""

    def __init__(self, path, rel):
        self.rel = rel
        with open(path, errors="replace") as f:
            self.raw = f.read()
        self.text = strip_c(self.raw)
        self.line_start = [0]
        for m in re.finditer("\n", self.raw):
            self.line_start.append(m.end())
        self.functions = []  # (name, params, body_start, body_end)
        s = self.text
        depth, i = 0, 0
        while i < len(s):
            c = s[i]
            if c == "{":
                depth += 1
            elif c == "}":
                depth -= 1
            elif c == "(" and depth == 0:
                m = re.search(r"([A-Za-z_]\w*)\s*$", s[max(0, i - 200):i])
                close = match_paren(s, i)
                after = re.match(r"\s*\{", s[close:])
                if m and m.group(1) not in KEYWORDS and after:
                    body = close + after.end() - 1
                    end = match_paren(s, body)
                    params = [param_name(p) for p in split_top(s[i + 1:close - 1])]
                    self.functions.append((m.group(1), params, body, end))
                    i = end
                    continue
                i = close
                continue
            i += 1

    def offset(self, line, col):
        return self.line_start[line - 1] + col - 1 if 0 < line <= len(self.line_start) else None

    def function_at(self, off):
        for name, params, start, end in self.functions:
            if start <= off < end:
                return name, params
        return None, []


class Resolver:
    def __init__(self, root, dirs, graph):
        self.graph = graph
        self.root = os.path.abspath(root)
        self.sources = {}
        for d in dirs:
            for base, _, files in os.walk(os.path.join(root, d)):
                for name in sorted(files):
                    if name.endswith((".c", ".h")):
                        path = os.path.join(base, name)
                        rel = os.path.relpath(path, root)
                        self.sources[rel] = Source(path, rel)
        self.public = set()
        for base, _, files in os.walk(os.path.join(root, "include")):
            for name in files:
                if name.endswith(".h"):
                    with open(os.path.join(base, name), errors="replace") as f:
                        self.public.update(IDENT.findall(strip_c(f.read())))
        self.defined = {}  # function name -> parameter names
        for src in self.sources.values():
            for name, params, _, _ in src.functions:
                self.defined.setdefault(name, params)
        # member name -> [(source, offset of the stored value)]
        self.stores = defaultdict(list)
        for src in self.sources.values():
            for m in re.finditer(r"([\w\.\->\[\]]*?)(?:\.|->)\s*([A-Za-z_]\w*)\s*=(?!=)\s*([^;,{}]*)",
                                 src.text):
                self.stores[m.group(2)].append((src, m.start(3), m.group(3), m.group(1)))

    def source(self, file):
        """A file named by gcc (relative to where it ran, or absolute), if it was scanned."""
        return self.sources.get(file) or self.sources.get(os.path.relpath(os.path.abspath(file), self.root))

    def is_function(self, name):
        return name in self.defined or name in self.graph.by_name

    def values(self, expr, src, off, seen):
        """The functions an expression may hold: a function's name, or a parameter of the
        function around it, followed to what its callers pass."""
        expr = re.sub(r"\(\s*[A-Za-z_][\w\s\*]*\)", "", expr).strip().lstrip("&").strip()
        if expr in ("NULL", "0"):
            return set(), True
        if not IDENT.fullmatch(expr):
            return set(), True
        if self.is_function(expr):
            return {(expr, src.rel if src is not None else None)}, True
        fname, params = src.function_at(off) if src is not None else (None, [])
        if fname is None or expr not in params:
            return set(), False
        return self.arguments(fname, params.index(expr), seen)

    def arguments(self, fname, index, seen):
        if (fname, index) in seen:
            return set(), True
        seen.add((fname, index))
        found, known = set(), True
        if fname in self.public:
            found.add((APP, None))
        call = re.compile(r"\b" + re.escape(fname) + r"\s*\(")
        for src in self.sources.values():
            for m in call.finditer(src.text):
                caller, _ = src.function_at(m.start())
                if caller is None or caller == fname and src.text[m.end() - 1] != "(":
                    continue
                args = split_top(src.text[m.end():match_paren(src.text, m.end() - 1) - 1])
                if index < len(args):
                    vals, ok = self.values(args[index], src, m.start(), seen)
                    found |= vals
                    known = known and ok
        return found, known

    def targets(self, site):
        """The functions an indirect call may reach, and the expression called: a set (maybe
        empty: every caller passes NULL), or None when they cannot be known."""
        file, line, col = site
        src = self.source(file)
        off = src.offset(line, col) if src is not None else None
        if off is None:
            return None, f"{file}:{line}:{col}"
        expr, off = self.called_expr(src, off)
        for key in (f"{src.rel}:{expr}", expr):
            if key in INDIRECT_TABLE:
                return {(name, None) for name in INDIRECT_TABLE[key]}, expr
        member = re.search(r"(?:\.|->)([A-Za-z_]\w*)$", expr)
        if member:
            stored = INDIRECT_MEMBERS.get(expr, member.group(1))
            *outer, name = re.split(r"\.|->", stored)
            found, any_store = set(), False
            for ssrc, soff, value, path in self.stores.get(name, []):
                if outer and not path.endswith(outer[-1]):
                    continue
                any_store = True
                vals, _ = self.values(value, ssrc, soff, set())
                found |= vals
            return (found if any_store else None), expr
        if IDENT.fullmatch(expr):
            fname, params = src.function_at(off)
            if fname is not None and expr in params:
                found, known = self.arguments(fname, params.index(expr), set())
                return (found if known else None), expr
        return None, expr or f"{file}:{line}:{col}"

    def called_expr(self, src, off):
        """The expression called at a site gcc named: as written there, or, when the site is a
        macro wrapping the call (ZM_TRY(l->ops->read(...))), the first call through a member or
        a parameter among the macro's arguments."""
        text = src.text
        m = re.match(r"[\w\s\.\->\[\]]*?(?=\s*\()", text[off:off + 200])
        expr = re.sub(r"\s+", "", m.group(0)) if m else ""
        if not re.fullmatch(r"[A-Z][A-Z0-9_]*", expr):
            return expr, off
        start = off + m.end()
        start = text.index("(", start)
        end = match_paren(text, start)
        _, params = src.function_at(off)
        for c in re.finditer(r"([A-Za-z_][\w\.\->\[\]]*)\s*\(", text[start + 1:end]):
            inner = c.group(1)
            if "." in inner or "->" in inner or inner in params:
                return inner, start + 1 + c.start()
        return expr, off


# ---- the worst path ---------------------------------------------------------------------------

class Analysis:
    def __init__(self, graph, resolver):
        self.graph = graph
        self.resolver = resolver
        self.errors = defaultdict(list)   # root -> messages
        self.memo = {}                    # title -> (depth, next hop): see longest()
        self.edges = {}                   # title -> [(callee title, via)]
        self.reach_memo = {}              # target -> {title: (bytes in use when target is entered, next hop)}
        self.root = None

    def title_for(self, name, file):
        """The node a function name means, as seen from the source file that names it: its own
        static function of that name, else the extern one."""
        titles = self.graph.by_name.get(name, set())
        here = os.path.abspath(os.path.join(self.resolver.root, file)) if file else None
        local = [t for t in titles if ":" in t and os.path.abspath(self.graph.unit_of.get(t, "")) == here]
        if local:
            return min(local)
        extern = [t for t in titles if ":" not in t]
        if extern:
            return min(extern)
        return min(titles) if titles else name

    def callees(self, title):
        if title in self.edges:
            return self.edges[title]
        out = [(c, None) for c in sorted(self.graph.calls.get(title, ()))]
        for site in self.graph.indirect.get(title, []):
            names, expr = self.resolver.targets(site)
            if names is None:
                out.append((None, f"{expr} at {site[0]}:{site[1]}"))
                continue
            for name, file in sorted(names, key=str):
                # one node per call site's expression, so the report tells a subscriber's
                # callback from an allocator hook
                if name == APP:
                    out.append((f"{APP} {expr}", expr))
                elif name in self.graph.by_name:
                    out.append((self.title_for(name, file), expr))
                # else: named in code this configuration leaves out (#if), so never stored here;
                # a function whose address is taken always has a frame of its own

        self.edges[title] = out
        return out

    def frame(self, title):
        if title.startswith(APP):
            return APP_FUNCTION_BYTES
        if title in self.graph.frame:
            if self.graph.qual[title] == "dynamic":
                self.errors[self.root].append(
                    f"{plain_name(title)} ({self.graph.where[title]}) has a frame of unbounded (dynamic) size")
            return self.graph.frame[title]
        name = plain_name(title)
        if name in LIBC_FUNCTIONS or name.startswith(LIBC_PREFIXES):
            return LIBC_CALL_BYTES
        if name.startswith(BOARD_PREFIXES):
            return BOARD_CALL_BYTES
        self.errors[self.root].append(f"no frame known for {name} (not compiled, and not a C library function)")
        return 0

    def longest(self, start, memo, goal=None):
        """Fills memo (title -> (bytes, (callee, via) or None)) for start and all it reaches: the
        deepest chain from each, or with a goal, the deepest chain to the goal (bytes in use when
        the goal is entered, its own frame not counted; None when it is out of reach). Each
        function is walked once and each call followed once, so the time is linear in the graph
        whatever the number of paths; the walk keeps its own stack, so a deep graph cannot exhaust
        Python's. A call back into a function still on the stack closes a recursion: an error of
        the depth walk (goal None), left out of the sum either way."""
        if start in memo:
            return memo[start]
        if start == goal:
            memo[start] = (0, None)
            return memo[start]
        stack = [(start, iter(self.callees(start)), None)]
        on_stack = {start: 0}
        best = {start: (0, None)}  # title still on the stack -> (bytes of its callees, next hop)

        def take(title, callee, via):
            result = memo[callee]
            if result is None:
                return
            d, nxt = best[title]
            if nxt is None or result[0] > d:
                best[title] = (result[0], (callee, via))

        while stack:
            title, calls, _ = stack[-1]
            pushed = False
            for callee, via in calls:
                if callee is None:
                    if goal is None:
                        self.errors[self.root].append(f"indirect call with unknown targets in {plain_name(title)}:"
                                                      f" {via} (name them in INDIRECT_TABLE)")
                    continue
                if callee in memo:
                    take(title, callee, via)
                elif callee in on_stack:
                    if goal is None:
                        cycle = [t for t, _, _ in stack[on_stack[callee]:]] + [callee]
                        self.errors[self.root].append("recursion (depth unbounded): "
                                                      + " -> ".join(plain_name(t) for t in cycle))
                elif callee == goal:
                    memo[callee] = (0, None)
                    take(title, callee, via)
                else:
                    on_stack[callee] = len(stack)
                    best[callee] = (0, None)
                    stack.append((callee, iter(self.callees(callee)), via))
                    pushed = True
                    break
            if pushed:
                continue
            _, _, via = stack.pop()
            del on_stack[title]
            d, nxt = best.pop(title)
            if goal is not None and nxt is None and title != goal:
                memo[title] = None
            else:
                memo[title] = (self.frame(title) + d, nxt)
            if stack:
                take(stack[-1][0], title, via)
        return memo[start]

    def depth(self, title):
        """(bytes, [(title, via)]) of the deepest chain from title, via naming the expression of
        an indirect call."""
        total, _ = self.longest(title, self.memo)
        return total, self.chain(title, self.memo)

    def reach(self, title, target):
        """Bytes in use when target is entered along the deepest chain from title to it (target's
        own frame not counted), and that chain; None if title does not reach it."""
        memo = self.reach_memo.setdefault(target, {})
        result = self.longest(title, memo, goal=target)
        if result is None:
            return None
        return (0 if title == target else result[0]), self.chain(title, memo, target)

    @staticmethod
    def chain(title, memo, goal=None):
        """The chain memo's next hops make from title: a function's next hop was finished before
        it, so the hops never loop back."""
        out, via = [], None
        while title is not None:
            out.append((title, via))
            result = memo.get(title)
            if title == goal or result is None or result[1] is None:
                break
            title, via = result[1]
        return out


def report(graph, resolver, roots):
    failed = False
    for root, bound in roots.items():
        title = root if root in graph.frame else next(iter(sorted(graph.by_name.get(root, []))), None)
        if title is None:
            print(f"check-stack: {root}: FAIL, no such function in the compiled sources")
            failed = True
            continue
        a = Analysis(graph, resolver)
        a.root = root
        total, path = a.depth(title)
        errors = sorted(set(a.errors[root]))
        verdict = "ok" if not errors and total <= bound else "FAIL"
        failed = failed or verdict != "ok"
        print(f"check-stack: {root}: {total} bytes worst case, bound {bound}: {verdict}")
        for t, via in path:
            size = a.frame(t)
            where = graph.where.get(t, "application" if t.startswith(APP) else
                                    "board" if plain_name(t).startswith(BOARD_PREFIXES) else "C library")
            note = f"   via {via}" if via else ""
            print(f"    {size:6d}  {plain_name(t)}  ({where}){note}")
        apps = sorted({c for cs in a.edges.values() for c, _ in cs if c is not None and c.startswith(APP)})
        for target in apps:
            found = a.reach(title, target)
            if found is None:
                continue
            at, chain = found
            names = [plain_name(t) for t, _ in chain[1:-1]]
            print(f"    application function via {target[len(APP) + 1:]}: entered at {at} bytes at most,"
                  f" counted as {APP_FUNCTION_BYTES}, allowance {bound - at} ({' > '.join(names)})")
        for e in errors:
            print(f"    error: {e}")
    return failed


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("objdir", help="directory holding the .su and .ci files")
    ap.add_argument("--src", default=".", help="source tree root (default .)")
    ap.add_argument("--dirs", default="src,port",
                    help="comma-separated source folders scanned for indirect targets")
    ap.add_argument("--root", action="append", metavar="NAME=BYTES",
                    help="a root and its bound, instead of BOUNDS (repeatable)")
    ap.add_argument("--indirect", action="store_true", help="also list every indirect call and its targets")
    ap.add_argument("--top", type=int, default=0, help="also list the N largest frames")
    args = ap.parse_args()

    roots = BOUNDS
    if args.root:
        roots = {}
        for r in args.root:
            name, _, bound = r.partition("=")
            roots[name] = int(bound)
    graph, units = load(args.objdir)
    resolver = Resolver(args.src, [d for d in args.dirs.split(",") if os.path.isdir(os.path.join(args.src, d))], graph)
    print(f"check-stack: {units} translation units, {len(graph.frame)} functions")
    if args.top:
        for t in sorted(graph.frame, key=lambda t: -graph.frame[t])[:args.top]:
            print(f"    {graph.frame[t]:6d}  {plain_name(t)}  ({graph.where[t]})")
    if args.indirect:
        for title in sorted(graph.indirect):
            for site in graph.indirect[title]:
                names, expr = resolver.targets(site)
                shown = "UNKNOWN" if names is None else ", ".join(sorted({n for n, _ in names})) or "(none: only NULL)"
                print(f"    {plain_name(title)} {site[0]}:{site[1]}: {expr} -> {shown}")
    failed = report(graph, resolver, roots)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
