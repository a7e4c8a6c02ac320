#!/usr/bin/env python3
"""Lists the public symbols of Sluice's library products that have no documentation comment.

Reads the symbol graphs that `swift build -Xswiftc -emit-symbol-graph ...` wrote (Tools/Docs/docs.sh
symbolgraphs) and checks every symbol that
  - belongs to one of the modules named with --module (a graph file `M.symbols.json` or `M@Other.symbols.json`),
  - is `public` or `open`,
  - is written in this checkout's sources (a location under --source-root's Modules/ or Plugins/, or the
    --source-dir folders): synthesized members,
    default implementations and members inherited from another module's protocol have none and are skipped,
  - does not implement a protocol requirement (its `memberOf` relationship has no `sourceOrigin`): DocC shows
    the requirement's documentation there, and the requirement is checked where it is declared,
and fails when its documentation comment is missing or blank.

    check_symbols.py --symbol-graph-dir DIR --source-root ROOT --module SluiceCore [--module ...]
                     [--report FILE] [--quiet]

Exit status: 0 when every checked symbol is documented, 1 when one is not (each listed as
`path:line: Module: kind title`), 2 on a usage error or a module with no symbol graph.
"""

import argparse
import json
import os
import sys
import urllib.parse
import urllib.request

PUBLIC = {"public", "open"}


def graph_files(directory, modules):
    """(module, path) for every symbol graph in `directory` (recursively) that belongs to `modules`."""
    found = []
    for parent, _, names in os.walk(directory):
        for name in sorted(names):
            if not name.endswith(".symbols.json"):
                continue
            module = name[: -len(".symbols.json")].split("@", 1)[0]
            if module in modules:
                found.append((module, os.path.join(parent, name)))
    return found


def source_path(symbol, source_root, source_dirs=("Modules", "Plugins")):
    """The symbol's file relative to `source_root`, or None when it is not written in one of its
    `source_dirs` (a package's checkout under .build is not)."""
    uri = (symbol.get("location") or {}).get("uri")
    if not uri or not uri.startswith("file://"):
        return None
    path = os.path.realpath(urllib.request.url2pathname(urllib.parse.urlparse(uri).path))
    root = os.path.realpath(source_root)
    if os.path.commonpath([path, root]) != root:
        return None
    relative = os.path.relpath(path, root)
    if source_dirs and relative.split(os.sep)[0] not in source_dirs:
        return None
    return relative


def is_documented(symbol):
    lines = (symbol.get("docComment") or {}).get("lines") or []
    return any(line.get("text", "").strip() for line in lines)


def check(directory, source_root, modules, source_dirs=("Modules", "Plugins")):
    """Returns (checked, undocumented, modules without a graph); undocumented entries are dicts."""
    checked, undocumented, seen, modules_seen = 0, [], set(), set()
    for module, path in graph_files(directory, set(modules)):
        with open(path, encoding="utf-8") as handle:
            graph = json.load(handle)
        modules_seen.add(module)
        implementations = {relationship.get("source") for relationship in graph.get("relationships", [])
                           if relationship.get("sourceOrigin")}
        for symbol in graph.get("symbols", []):
            precise = symbol.get("identifier", {}).get("precise", "")
            if precise in seen or "::SYNTHESIZED::" in precise or precise in implementations:
                continue
            if symbol.get("accessLevel") not in PUBLIC:
                continue
            relative = source_path(symbol, source_root, source_dirs)
            if relative is None:
                continue
            seen.add(precise)
            checked += 1
            if not is_documented(symbol):
                position = (symbol.get("location") or {}).get("position") or {}
                parts = relative.split(os.sep)
                undocumented.append({
                    "module": parts[1] if len(parts) > 2 else module,
                    "path": relative,
                    "line": position.get("line", 0) + 1,
                    "kind": symbol.get("kind", {}).get("displayName", "symbol"),
                    "title": ".".join(symbol.get("pathComponents") or [symbol.get("names", {}).get("title", "?")]),
                })
    undocumented.sort(key=lambda entry: (entry["path"], entry["line"], entry["title"]))
    return checked, undocumented, sorted(set(modules) - modules_seen)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--symbol-graph-dir", required=True)
    parser.add_argument("--source-root", required=True)
    parser.add_argument("--module", action="append", required=True, dest="modules")
    parser.add_argument("--source-dir", action="append", dest="source_dirs",
                        help="a folder under --source-root whose symbols are checked (default: Modules, Plugins)")
    parser.add_argument("--report", help="also write the findings to this file")
    parser.add_argument("--quiet", action="store_true", help="print the summary line only")
    args = parser.parse_args(argv)

    if not os.path.isdir(args.symbol_graph_dir):
        print(f"check_symbols: no symbol graph folder {args.symbol_graph_dir}", file=sys.stderr)
        return 2
    checked, undocumented, missing = check(args.symbol_graph_dir, args.source_root, args.modules,
                                           tuple(args.source_dirs or ("Modules", "Plugins")))
    lines = [f"{e['path']}:{e['line']}: {e['module']}: {e['kind']} {e['title']} has no documentation comment"
             for e in undocumented]
    per_module = {}
    for entry in undocumented:
        per_module[entry["module"]] = per_module.get(entry["module"], 0) + 1
    summary = (f"check_symbols: {checked} public symbols in {len(args.modules) - len(missing)} modules, "
               f"{len(undocumented)} without a documentation comment")
    if per_module:
        summary += " (" + ", ".join(f"{m}: {n}" for m, n in sorted(per_module.items())) + ")"
    if args.report:
        with open(args.report, "w", encoding="utf-8") as out:
            out.write("\n".join(lines + [summary]) + "\n")
    if not args.quiet:
        for line in lines:
            print(line)
    print(summary)
    if missing:
        print("check_symbols: no symbol graph for " + ", ".join(missing), file=sys.stderr)
        return 2
    return 1 if undocumented else 0


if __name__ == "__main__":
    sys.exit(main())
