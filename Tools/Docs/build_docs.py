#!/usr/bin/env python3
"""Builds Sluice's DocC reference: one archive per library product, and the guides, merged into one.

    build_docs.py --symbol-graph-dir DIR --output DIR [--work DIR] [--module NAME ...] [--check]

- The library products are Package.swift's `libraryModules` (or the --module names), converted in the
  order of their dependencies on each other, each with the archives of the modules it depends on, so a
  documentation link to another module's symbol resolves.
- Each module's symbol graphs are the compiler's, as swift-docc-plugin passes them: a module that
  re-exports SluiceCore (`@_exported import`) lists SluiceCore's symbols too, as its users see them, and
  its documentation links to them resolve. (--own-symbols-only keeps each module to the symbols written in
  its folder: a smaller reference whose links to re-exported symbols do not resolve.)
- Each module's catalog is `Modules/<Name>/<Name>.docc` (or `Plugins/...`), as
  `swift package generate-documentation` reads it.
- The guides, docs/*.md, are copied at build time into a catalog of their own ("Guides"), whose root page
  lists them; it may link to the symbols of every module. Their links to each other (`other.md#anchor`)
  become DocC links (`doc:other#Anchor`), so a link to a missing guide or heading is reported too. docs/
  stays the only copy of the guides.
- The archives are merged by `docc merge` into OUTPUT/Sluice.doccarchive (static hosting layout).
- Modules whose dependencies are converted are converted side by side (--jobs, default one per core). With
  --work, a module whose inputs (its filtered symbol graphs, its catalog, DocC itself, its arguments and its
  dependencies' inputs) have not changed since the last run keeps its archive and its diagnostics: DocC's
  output is a function of those inputs, so the check is the same, without the minutes of converting again.

Every diagnostic DocC prints is listed, as `file:line: severity: summary`. With --check, the exit status
is 1 when DocC reported a warning or an error: a link to a symbol or article that does not exist, a topic
that names none, a malformed directive.
"""

import argparse
import concurrent.futures
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import urllib.parse

ROOT = os.path.realpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
GUIDES = "Guides"
FIRST_GUIDES = ["getting-started", "session-manager", "migrating-from-afnetworking"]


def library_modules():
    with open(os.path.join(ROOT, "Package.swift"), encoding="utf-8") as handle:
        text = handle.read()
    match = re.search(r"let libraryModules = \[(.*?)\]", text, re.S)
    if not match:
        sys.exit("build_docs: no libraryModules array in Package.swift")
    return re.findall(r'"([^"]+)"', match.group(1))


def module_folder(name):
    for parent in ("Modules", "Plugins"):
        folder = os.path.join(ROOT, parent, name)
        if os.path.isdir(folder):
            return folder
    sys.exit(f"build_docs: no folder for module {name}")


def source_imports(name):
    """The modules `name`'s sources import (any form of import)."""
    found = set()
    for parent, _, files in os.walk(module_folder(name)):
        for file in files:
            if file.endswith(".swift"):
                with open(os.path.join(parent, file), encoding="utf-8") as handle:
                    text = handle.read()
                found.update(re.findall(r"^\s*(?:@[\w(). ]+\s+)*import\s+(?:\w+\s+)?(\w+)", text, re.M))
    return found


def dependency_order(modules):
    """`modules` ordered so each comes after the ones it imports; with each one's transitive imports."""
    direct = {name: source_imports(name) & set(modules) - {name} for name in modules}
    ordered, closure = [], {}

    def visit(name, path):
        if name in closure:
            return
        if name in path:
            sys.exit("build_docs: import cycle " + " -> ".join(path + [name]))
        for other in sorted(direct[name]):
            visit(other, path + [name])
        closure[name] = set(direct[name]).union(*(closure[other] for other in direct[name]))
        ordered.append(name)

    for name in modules:
        visit(name, [])
    return ordered, closure


def file_path(uri):
    return os.path.realpath(urllib.parse.unquote(urllib.parse.urlparse(uri).path)) if uri else None


def filter_graphs(graph_dir, module, target, own_only=True):
    """Copies `module`'s symbol graphs to `target`, keeping only the symbols written in its own folder."""
    folder = module_folder(module) + os.sep
    os.makedirs(target, exist_ok=True)
    names = [n for n in os.listdir(graph_dir) if n.endswith(".symbols.json") and n.split("@")[0].split(".")[0] == module]
    if not any(n == f"{module}.symbols.json" for n in names):
        sys.exit(f"build_docs: no symbol graph for {module} in {graph_dir}")
    for name in names:
        with open(os.path.join(graph_dir, name), encoding="utf-8") as handle:
            graph = json.load(handle)
        symbols = graph.get("symbols", [])
        kept = set()
        for symbol in symbols:
            path = file_path((symbol.get("location") or {}).get("uri"))
            if path and (path.startswith(folder) or not own_only):
                kept.add(symbol["identifier"]["precise"])
        parents = {}
        for relationship in graph.get("relationships", []):
            if relationship.get("kind") == "memberOf":
                parents.setdefault(relationship["source"], relationship["target"])
        # Symbols with no location (synthesized, inherited) follow the type they are members of.
        changed = True
        while changed:
            changed = False
            for symbol in symbols:
                precise = symbol["identifier"]["precise"]
                if precise in kept or (symbol.get("location") or {}).get("uri"):
                    continue
                owner = parents.get(precise) or (precise.split("::SYNTHESIZED::")[-1] if "::SYNTHESIZED::" in precise else None)
                if owner in kept:
                    kept.add(precise)
                    changed = True
        graph["symbols"] = [s for s in symbols if s["identifier"]["precise"] in kept]
        graph["relationships"] = [r for r in graph.get("relationships", []) if r.get("source") in kept]
        if name != f"{module}.symbols.json" and not graph["symbols"]:
            continue
        with open(os.path.join(target, name), "w", encoding="utf-8") as out:
            json.dump(graph, out)


def github_slug(heading):
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def docc_anchor(heading):
    text = re.sub(r"[^\w\s-]", "", heading.replace("`", ""))
    return "-".join(text.split())


def headings(markdown):
    out, fenced = [], False
    for line in markdown.split("\n"):
        if line.strip().startswith("```"):
            fenced = not fenced
        elif not fenced and re.match(r"#{2,6} ", line):
            out.append(line.lstrip("#").strip())
    return out


def rewrite_guide(name, text, guides):
    """A guide with its links to other guides turned into DocC links; links outside docs/ into plain text."""
    def replace(match):
        label, target = match.group(1), match.group(2)
        if re.match(r"[a-z][a-z0-9+.-]*:", target):
            return match.group(0)
        page, _, anchor = target.partition("#")
        if page == "":
            page = name
        elif page.endswith(".md") and "/" not in page:
            page = page[:-3]
        else:
            return label  # a file of the repository outside docs/: no page of the reference
        fragment = ""
        if anchor:
            fragment = anchor
            for heading in headings(guides.get(page, "")):
                if github_slug(heading) == anchor:
                    fragment = docc_anchor(heading)
            fragment = "#" + fragment
        return f"[{label}](doc:{page}{fragment})"

    out, fenced = [], False
    for line in text.split("\n"):
        if line.strip().startswith("```"):
            fenced = not fenced
        out.append(line if fenced else re.sub(r"(?<!!)\[([^\]]+)\]\(([^)\s]+)\)", replace, line))
    return "\n".join(out)


def guides_catalog(target, modules):
    docs = os.path.join(ROOT, "docs")
    guides = {}
    for name in sorted(os.listdir(docs)):
        if name.endswith(".md"):
            with open(os.path.join(docs, name), encoding="utf-8") as handle:
                guides[name[:-3]] = handle.read()
    os.makedirs(target)
    for name, text in guides.items():
        with open(os.path.join(target, name + ".md"), "w", encoding="utf-8") as out:
            out.write(rewrite_guide(name, text, guides))
    order = [g for g in FIRST_GUIDES if g in guides] + [g for g in guides if g not in FIRST_GUIDES]
    with open(os.path.join(target, "Guides.md"), "w", encoding="utf-8") as out:
        out.write("# Guides\n\n@Metadata {\n    @TechnologyRoot\n}\n\n"
                  "How to use Sluice, module by module: the guides of the repository's `docs/` folder.\n\n"
                  "## Overview\n\nStart with <doc:getting-started>. The reference of each module, "
                  + ", ".join(modules) + ", is beside these guides.\n\n## Topics\n\n### Guides\n\n"
                  + "".join(f"- <doc:{g}>\n" for g in order))
    return len(guides)


def run_docc(arguments, diagnostics_file):
    docc = docc_path()
    result = subprocess.run([docc] + arguments + ["--diagnostics-file", diagnostics_file],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if result.returncode != 0 and not os.path.exists(diagnostics_file):
        sys.stdout.write(result.stdout)
        sys.exit(f"build_docs: docc failed ({result.returncode})")
    found = []
    if os.path.exists(diagnostics_file):
        with open(diagnostics_file, encoding="utf-8") as handle:
            diagnostics = json.load(handle).get("diagnostics", [])
        for diagnostic in diagnostics:
            path = file_path(diagnostic.get("source"))
            line = ((diagnostic.get("range") or {}).get("start") or {}).get("line", 0)
            found.append({"path": os.path.relpath(path, ROOT) if path else "?", "line": line,
                          "severity": diagnostic.get("severity", "warning"),
                          "summary": diagnostic.get("summary", "").strip()})
    return result.returncode, found


def tree_digest(digest, path):
    """Adds the names and bytes of the files under `path` (a file or a folder) to `digest`."""
    if not os.path.exists(path):
        digest.update(b"absent\0")
        return
    files = [path] if os.path.isfile(path) else sorted(
        os.path.join(parent, name) for parent, _, names in os.walk(path) for name in names)
    for file in files:
        digest.update(os.path.relpath(file, path).encode() + b"\0")
        with open(file, "rb") as handle:
            digest.update(handle.read())
        digest.update(b"\0")


def docc_path():
    return os.environ.get("DOCC") or shutil.which("docc") or "/opt/swift/usr/bin/docc"


def module_graph_files(graph_dir, module):
    """The compiler's symbol graph files of `module` (its own, and its extensions of other modules')."""
    return sorted(os.path.join(graph_dir, n) for n in os.listdir(graph_dir)
                  if n.endswith(".symbols.json") and n.split("@")[0].split(".")[0] == module)


def convert(name, arguments, inputs, dependency_digests, work, cached, prepare=None, key_extra=()):
    """Converts one catalog with DocC, or reuses the last run's archive and diagnostics when every input
    is the same; `prepare` (making what DocC reads from `inputs`) runs only when it converts. Returns
    (digest, status, diagnostics, reused)."""
    digest = hashlib.sha256()
    docc = os.path.realpath(docc_path())
    digest.update(f"{docc}\0{os.path.getmtime(docc)}\0".encode())
    digest.update("\0".join(list(arguments) + list(key_extra)).encode() + b"\0")
    for path in inputs:
        tree_digest(digest, path)
    for dependency in dependency_digests:
        digest.update(dependency.encode() + b"\0")
    key = digest.hexdigest()
    record = os.path.join(work, "cache", name + ".json")
    archive = arguments[arguments.index("--output-path") + 1]
    if cached and os.path.exists(record) and os.path.isdir(archive):
        with open(record, encoding="utf-8") as handle:
            kept = json.load(handle)
        if kept.get("digest") == key:
            return key, kept["status"], kept["found"], True
    if prepare:
        prepare()
    shutil.rmtree(archive, ignore_errors=True)
    os.makedirs(os.path.dirname(archive), exist_ok=True)
    diagnostics = os.path.join(work, name + ".diagnostics.json")
    for stale in (record, diagnostics):
        if os.path.exists(stale):
            os.remove(stale)
    status, found = run_docc(arguments, diagnostics)
    os.makedirs(os.path.dirname(record), exist_ok=True)
    with open(record, "w", encoding="utf-8") as handle:
        json.dump({"digest": key, "status": status, "found": found}, handle)
    return key, status, found, False


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--symbol-graph-dir", required=True)
    parser.add_argument("--output", required=True, help="folder for Sluice.doccarchive")
    parser.add_argument("--work", help="folder for the per-module catalogs and archives (default: temporary)")
    parser.add_argument("--module", action="append", dest="modules")
    parser.add_argument("--no-guides", action="store_true")
    parser.add_argument("--own-symbols-only", action="store_true",
                        help="leave out the symbols a module re-exports (smaller; its links to them do not resolve)")
    parser.add_argument("--check", action="store_true", help="exit 1 when DocC reports a warning or an error")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="conversions at once (default: cores)")
    args = parser.parse_args(argv)

    modules, closure = dependency_order(args.modules or library_modules())
    work = args.work or tempfile.mkdtemp(prefix="sluice-docs.")
    cached = args.work is not None
    # The filtered graphs and the guides' catalog are made anew; archives and their records may be reused.
    for made in ("graphs", "catalogs"):
        shutil.rmtree(os.path.join(work, made), ignore_errors=True)
    os.makedirs(os.path.join(work, "archives"), exist_ok=True)
    findings, archives, digests, reused, guides_digest = [], {}, {}, 0, None

    def module_job(module):
        graphs = os.path.join(work, "graphs", module)
        archive = os.path.join(work, "archives", module + ".doccarchive")
        arguments = ["convert"]
        catalog = os.path.join(module_folder(module), module + ".docc")
        if os.path.isdir(catalog):
            arguments.append(catalog)
        arguments += ["--additional-symbol-graph-dir", graphs, "--output-path", archive,
                      "--fallback-display-name", module, "--fallback-bundle-identifier", module,
                      "--enable-experimental-external-link-support"]
        for dependency in sorted(closure[module]):
            arguments += ["--dependency", archives[dependency]]
        dependencies = [digests[d] for d in sorted(closure[module])]
        # The compiler's graphs are the input: filtering them (seconds of JSON for a module that re-exports
        # SluiceCore) is done only when the module is converted again.
        inputs = module_graph_files(args.symbol_graph_dir, module) + [catalog]
        return (archive,) + convert(
            module, arguments, inputs, dependencies, work, cached,
            prepare=lambda: filter_graphs(args.symbol_graph_dir, module, graphs, own_only=args.own_symbols_only),
            key_extra=[f"own-only={args.own_symbols_only}", module_folder(module)])

    try:
        # Each module once the modules it depends on are converted, as many at once as --jobs allows.
        pending, running = list(modules), {}
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            while pending or running:
                for module in [m for m in pending if closure[m] <= set(archives)]:
                    if len(running) >= max(1, args.jobs):
                        break
                    pending.remove(module)
                    running[pool.submit(module_job, module)] = module
                done, _ = concurrent.futures.wait(running, return_when=concurrent.futures.FIRST_COMPLETED)
                for future in done:
                    module = running.pop(future)
                    archive, digest, status, found, hit = future.result()
                    findings += found
                    if status != 0:
                        findings.append({"path": module, "line": 0, "severity": "error", "summary": f"docc exited {status}"})
                    archives[module], digests[module] = archive, digest
                    reused += hit
                    print(f"build_docs: {module}: {len(found)} diagnostics{' (unchanged)' if hit else ''}", flush=True)
        guide_count = 0
        if not args.no_guides:
            catalog = os.path.join(work, "catalogs", GUIDES + ".docc")
            guide_count = guides_catalog(catalog, modules)
            archive = os.path.join(work, "archives", GUIDES + ".doccarchive")
            arguments = ["convert", catalog, "--output-path", archive, "--fallback-display-name", GUIDES,
                         "--fallback-bundle-identifier", "Sluice" + GUIDES]
            for module in modules:
                arguments += ["--dependency", archives[module]]
            guides_digest, status, found, hit = convert(
                GUIDES, arguments, [catalog], [digests[m] for m in modules], work, cached)
            reused += hit
            for finding in found:  # the guides' copies stand for docs/ in the report
                finding["path"] = re.sub(r"^.*/" + GUIDES + r"\.docc/", "docs/", finding["path"])
            findings += found
            archives[GUIDES] = archive
            print(f"build_docs: {guide_count} guides: {len(found)} diagnostics", flush=True)

        os.makedirs(args.output, exist_ok=True)
        combined = os.path.join(args.output, "Sluice.doccarchive")
        merge_key = hashlib.sha256("\0".join(
            [combined] + [digests[m] for m in modules] + ([guides_digest] if guide_count else [])).encode()).hexdigest()
        merge_record = os.path.join(work, "cache", "merge.json")
        kept = None
        if cached and os.path.exists(merge_record) and os.path.isdir(combined):
            with open(merge_record, encoding="utf-8") as handle:
                kept = json.load(handle).get("digest")
        if kept != merge_key:
            shutil.rmtree(combined, ignore_errors=True)
            docc = docc_path()
            merged = subprocess.run([docc, "merge"] + [archives[m] for m in modules + ([GUIDES] if guide_count else [])]
                                    + ["--output-path", combined, "--synthesized-landing-page-name", "Sluice"],
                                    stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            if merged.returncode != 0:
                sys.stdout.write(merged.stdout)
                sys.exit(f"build_docs: docc merge failed ({merged.returncode})")
            if cached:
                os.makedirs(os.path.dirname(merge_record), exist_ok=True)
                with open(merge_record, "w", encoding="utf-8") as handle:
                    json.dump({"digest": merge_key}, handle)
    finally:
        if not args.work:
            shutil.rmtree(work, ignore_errors=True)

    # A comment of a re-exported symbol is converted once per module that re-exports it: reported once.
    unique = {}
    for finding in findings:
        summary = re.sub(r" at '/[^/']+", " at '", finding["summary"])
        unique.setdefault((finding["path"], finding["line"], finding["severity"], summary), finding)
    findings = list(unique.values())
    problems = [f for f in findings if f["severity"] in ("warning", "error")]
    for finding in sorted(findings, key=lambda f: (f["path"], f["line"], f["summary"])):
        print(f"{finding['path']}:{finding['line']}: {finding['severity']}: {finding['summary']}")
    print(f"build_docs: {len(modules)} modules and {guide_count} guides in {combined}"
          f" ({reused} catalogs unchanged since the last run); {len(problems)} warnings or errors from DocC")
    return 1 if args.check and problems else 0


if __name__ == "__main__":
    sys.exit(main())
