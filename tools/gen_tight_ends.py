#!/usr/bin/env python3
"""Generates crates/lib/src/compile/tight_ends.rs from the tree-sitter grammars ast-edit
is built with.

A pattern leaf that ends a pattern node (`parse` in `JSON.parse`) may be followed,
inside the code's node of that kind, by trailing children the matcher skips under
`smart`. For the prefilter's adjacent pairs that is fine only when the grammar lets
nothing but unnamed string tokens (punctuation, keywords) follow that child kind in
that node kind. This script works that out for every rule of each grammar, with a
Glushkov automaton over the rule (hidden rules inlined), and writes the pairs
(node kind, child kind) where it holds.

Conservative by construction: an inline regex or a non-string token after the child,
a hidden rule nested too deep or recursive, an external hidden token, or an alias
onto the node kind from anything but a plain rule makes the answer "not tight".

Usage: tools/gen_tight_ends.py > crates/lib/src/compile/tight_ends.rs

The grammar crates are read at the versions in Cargo.lock from where the build keeps
them: `cargo metadata --locked --filter-platform <host triple>` (tools/cargo_locked.py
says why that call works on a fresh machine, and fetches the crates if they are not
there yet). tests/it/generated.rs runs this script and fails when
crates/lib/src/compile/tight_ends.rs differs from its output.
"""
import json
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in tools/ when a test runs this
import cargo_locked  # noqa: E402  (tools/cargo_locked.py, next to this script)

LANGS = [  # (SupportLang variant, crate, grammar.json inside the crate)
    ("JavaScript", "tree-sitter-javascript", "src/grammar.json"),
    ("TypeScript", "tree-sitter-typescript", "typescript/src/grammar.json"),
    ("Tsx", "tree-sitter-typescript", "tsx/src/grammar.json"),
    ("Rust", "tree-sitter-rust", "src/grammar.json"),
    ("C", "tree-sitter-c", "src/grammar.json"),
    ("Cpp", "tree-sitter-cpp", "src/grammar.json"),
    ("Go", "tree-sitter-go", "src/grammar.json"),
    ("Java", "tree-sitter-java", "src/grammar.json"),
    ("Python", "tree-sitter-python", "src/grammar.json"),
]
MAX_DEPTH = 12


def crates():
    """name -> (version, source dir) of every package the locked build has on this host."""
    found = cargo_locked.packages(cargo_locked.host())
    return {name: (version, os.path.dirname(p["manifest_path"])) for (name, version), p in found.items()}


def hidden_names(grammar):
    """Rules that make no node of their own: `_`-named, supertypes, inlined."""
    names = {n for n in grammar["rules"] if n.startswith("_")}
    names |= {e["name"] if isinstance(e, dict) else e for e in grammar.get("supertypes", [])}
    names |= {e["name"] if isinstance(e, dict) else e for e in grammar.get("inline", [])}
    names |= {e["name"] for e in grammar.get("externals", []) if e.get("type") == "SYMBOL" and e["name"].startswith("_")}
    return names


class Glushkov:
    """Positions of one rule's visible children, with first/last/follow sets."""

    def __init__(self, grammar, hidden):
        self.rules = grammar["rules"]
        self.externals = {e["name"] for e in grammar.get("externals", []) if e.get("type") == "SYMBOL"}
        self.hidden = hidden
        self.items = []  # per position: ("tok", kind, named) | ("opaque", why)
        self.follow = []

    def pos(self, item):
        self.items.append(item)
        self.follow.append(set())
        p = len(self.items) - 1
        return ({p}, {p}, False)

    def build(self, e, stack):
        t = e["type"]
        if t == "BLANK" or (t == "STRING" and e["value"] == ""):
            return (set(), set(), True)
        if t == "STRING":
            return self.pos(("tok", e["value"], False))
        if t == "PATTERN":
            return self.pos(("opaque", "inline regex token"))
        if t in ("TOKEN", "IMMEDIATE_TOKEN"):
            c = e["content"]
            while c["type"] in ("PREC", "PREC_LEFT", "PREC_RIGHT", "PREC_DYNAMIC"):
                c = c["content"]
            if c["type"] == "STRING":
                return self.pos(("tok", c["value"], False))
            return self.pos(("opaque", "token"))
        if t == "ALIAS":
            return self.pos(("tok", e["value"], bool(e["named"])))
        if t in ("FIELD", "PREC", "PREC_LEFT", "PREC_RIGHT", "PREC_DYNAMIC", "RESERVED"):
            return self.build(e["content"], stack)
        if t == "SYMBOL":
            name = e["name"]
            if name not in self.hidden:
                return self.pos(("tok", name, True))
            if name in self.externals or name not in self.rules:
                return self.pos(("opaque", "hidden external " + name))
            if name in stack or len(stack) >= MAX_DEPTH:
                return self.pos(("opaque", "recursive hidden " + name))
            return self.build(self.rules[name], stack + [name])
        if t == "SEQ":
            first, last, nullable = set(), set(), True
            for m in e["members"]:
                f, l, n = self.build(m, stack)
                for p in last:
                    self.follow[p] |= f
                if nullable:
                    first |= f
                last = (last | l) if n else l
                nullable = nullable and n
            return (first, last, nullable)
        if t == "CHOICE":
            first, last, nullable = set(), set(), False
            for m in e["members"]:
                f, l, n = self.build(m, stack)
                first |= f
                last |= l
                nullable = nullable or n
            return (first, last, nullable)
        if t in ("REPEAT", "REPEAT1"):
            f, l, n = self.build(e["content"], stack)
            for p in l:
                self.follow[p] |= f
            return (f, l, n or t == "REPEAT")
        raise SystemExit(f"unknown rule type {t}")


def tight_children(grammar, hidden, rule_name):
    """Child kinds after which only unnamed string tokens can follow in rule_name."""
    g = Glushkov(grammar, hidden)
    g.build(grammar["rules"][rule_name], [rule_name])
    if any(it[0] == "opaque" and it[1].startswith("recursive") for it in g.items):
        return None  # a cut hidden rule could hold any child
    kinds = {}
    for p, it in enumerate(g.items):
        if it[0] == "tok":
            kinds.setdefault(it[1], []).append(p)
    out = set()
    for kind, ps in kinds.items():
        seen, todo = set(), [q for p in ps for q in g.follow[p]]
        while todo:
            q = todo.pop()
            if q not in seen:
                seen.add(q)
                todo.extend(g.follow[q])
        if all(g.items[q][0] == "tok" and not g.items[q][2] for q in seen):
            out.add(kind)
    return out


def analyse(grammar):
    rules = grammar["rules"]
    hidden = hidden_names(grammar)
    # Node kinds made by aliasing: the aliased rule's children count too.
    alias_sources = {}

    def walk(e):
        if isinstance(e, dict):
            if e.get("type") == "ALIAS" and e.get("named"):
                c = e["content"]
                src = c["name"] if c.get("type") == "SYMBOL" else None
                alias_sources.setdefault(e["value"], []).append(src)
            for v in e.values():
                walk(v)
        elif isinstance(e, list):
            for v in e:
                walk(v)

    walk(rules)
    table = {}
    # Every kind a node can have: visible rules, and names only aliases give.
    for name in sorted({n for n in rules if n not in hidden} | set(alias_sources)):
        sources = ([name] if name in rules and name not in hidden else []) + alias_sources.get(name, [])
        result = None
        for s in sources:
            t = tight_children(grammar, hidden, s) if s in rules else None
            if t is None:
                result = set()
                break
            result = t if result is None else (result & t)
        if result:
            table[name] = sorted(result)
    return table


def unsure_unnamed(grammar):
    """Unnamed kinds whose text may differ from their name: aliases of anything
    but that same string (C's `#if` from /#[ \t]*if/), and external tokens."""
    out = set()

    def walk(e):
        if isinstance(e, dict):
            if e.get("type") == "ALIAS" and not e.get("named"):
                c = e["content"]
                if not (c.get("type") == "STRING" and c.get("value") == e["value"]):
                    out.add(e["value"])
            for v in e.values():
                walk(v)
        elif isinstance(e, list):
            for v in e:
                walk(v)

    walk(grammar["rules"])
    for e in grammar.get("externals", []):
        out.add(e.get("value") if e.get("type") == "STRING" else e.get("name"))
    return sorted(x for x in out if x)


def grammar_crates():
    """crates(), failing when a grammar crate of LANGS is not among them."""
    found = crates()
    missing = sorted({crate for _, crate, _ in LANGS} - set(found))
    if missing:
        raise SystemExit(f"not in Cargo.lock's build for this host: {', '.join(missing)}")
    return found


def print_arms(found, analyse):
    """One `SupportLang::X => &[(kind, &[...]), ...],` arm per language of LANGS:
    `analyse(grammar)` gives each kind's list."""
    for variant, crate, rel in LANGS:
        version, root = found[crate]
        table = analyse(json.load(open(os.path.join(root, rel))))
        print(f"        // {crate} {version}: {len(table)} node kinds")
        print(f"        SupportLang::{variant} => &[")
        for k in sorted(table):
            items = ", ".join(json.dumps(c) for c in table[k])
            print(f"            ({json.dumps(k)}, &[{items}]),")
        print("        ],")


def main():
    found = grammar_crates()
    print("// @generated by tools/gen_tight_ends.py from the grammars in Cargo.lock; do not edit.")
    print("//! Which child kinds can end a node kind: after them the grammar lets only")
    print("//! unnamed string tokens follow inside that node (see tools/gen_tight_ends.py).")
    print()
    print("use ast_grep_language::SupportLang;")
    print()
    print("/// True when, in `lang`, a `parent` node can hold after a `child` child only")
    print("/// unnamed string tokens (punctuation, keywords).")
    print("pub fn tight(lang: SupportLang, parent: &str, child: &str) -> bool {")
    print("    let table: &[(&str, &[&str])] = match lang {")
    print_arms(found, analyse)
    print("        _ => return false,")
    print("    };")
    print("    table")
    print("        .binary_search_by(|(p, _)| (*p).cmp(parent))")
    print("        .is_ok_and(|i| table[i].1.contains(&child))")
    print("}")
    print()
    print("/// True when, in `lang`, a node of the unnamed `kind` may hold other text than")
    print("/// `kind`: an alias of anything but that string, or an external token. Only")
    print("/// the languages of [`tight`] are known; for any other the answer is true.")
    print("pub fn unsure_unnamed(lang: SupportLang, kind: &str) -> bool {")
    print("    let kinds: &[&str] = match lang {")
    for variant, crate, rel in LANGS:
        kinds = unsure_unnamed(json.load(open(os.path.join(found[crate][1], rel))))
        print(f"        SupportLang::{variant} => &[{', '.join(json.dumps(k) for k in kinds)}],")
    print("        _ => return true,")
    print("    };")
    print("    kinds.contains(&kind)")
    print("}")


if __name__ == "__main__":
    main()
