"""The documentation checks on small fixtures: check_symbols.py fails on an undocumented public symbol and
passes a documented one; DocC's diagnostics, as build_docs.py reads them, report an article's link to a
symbol or a guide that does not exist; a catalog converted before is reused only while its inputs are the same.
Run by make docs-check:
    python3 -m unittest -q Tools/Docs/test_docs_check.py
"""

import io
import json
import os
import shutil
import sys
import tempfile
import unittest
from contextlib import redirect_stdout

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import build_docs  # noqa: E402
import check_symbols  # noqa: E402

DOCC = os.environ.get("DOCC") or shutil.which("docc") or "/opt/swift/usr/bin/docc"


def symbol(precise, title, kind, path, line, doc=None, access="public"):
    entry = {
        "kind": {"identifier": f"swift.{kind}", "displayName": kind.title()},
        "identifier": {"precise": precise, "interfaceLanguage": "swift"},
        "pathComponents": title.split("."),
        "names": {"title": title.split(".")[-1]},
        "accessLevel": access,
    }
    if path:
        entry["location"] = {"uri": "file://" + path, "position": {"line": line, "character": 4}}
    if doc is not None:
        entry["docComment"] = {"lines": [{"text": text} for text in doc]}
    return entry


def fixture_graph(root, documented_only=False):
    """A symbol graph of module Fixture: a documented struct and method, an undocumented method, and
    symbols the check skips (internal, synthesized, a protocol requirement's implementation, another
    package's)."""
    source = os.path.join(root, "Modules", "Fixture", "Fixture.swift")
    os.makedirs(os.path.dirname(source), exist_ok=True)
    with open(source, "w") as out:
        out.write("// fixture\n")
    symbols = [
        symbol("s:7Fixture10DocumentedV", "Documented", "struct", source, 2, ["A documented type."]),
        symbol("s:7Fixture10DocumentedV3runyyF", "Documented.run()", "method", source, 4, ["Runs.", ""]),
        symbol("s:7Fixture10DocumentedV4hideyyF", "Documented.hide()", "method", source, 6, access="internal"),
        symbol("s:7Fixture10DocumentedV4sizeSivp", "Documented.size", "property", source, 8),
        symbol("s:7Fixture10DocumentedV2eeoiySbAC_ACtFZ::SYNTHESIZED::s:7Fixture10DocumentedV", "Documented.!=(_:_:)",
               "op", None, 0),
        symbol("s:7Fixture7ImportedV", "Imported", "struct", "/elsewhere/.build/checkouts/Other.swift", 1),
    ]
    if not documented_only:
        symbols.append(symbol("s:7Fixture10DocumentedV5startyyF", "Documented.start()", "method", source, 10))
        symbols.append(symbol("s:7Fixture10DocumentedV5blankyyF", "Documented.blank()", "method", source, 12, ["  "]))
    graph = {
        "metadata": {"formatVersion": {"major": 0, "minor": 6, "patch": 0}, "generator": "fixture"},
        "module": {"name": "Fixture", "platform": {}},
        "symbols": symbols,
        "relationships": [
            {"kind": "memberOf", "source": "s:7Fixture10DocumentedV4sizeSivp", "target": "s:7Fixture10DocumentedV",
             "sourceOrigin": {"identifier": "s:7Fixture5SizedP4sizeSivp", "displayName": "Sized.size"}},
        ],
    }
    graphs = os.path.join(root, "graphs")
    os.makedirs(graphs, exist_ok=True)
    with open(os.path.join(graphs, "Fixture.symbols.json"), "w") as out:
        json.dump(graph, out)
    return graphs


class CheckSymbolsTests(unittest.TestCase):
    def setUp(self):
        self.root = tempfile.mkdtemp(prefix="docs-check-test.")
        self.addCleanup(shutil.rmtree, self.root)

    def run_main(self, graphs):
        buffer = io.StringIO()
        with redirect_stdout(buffer):
            status = check_symbols.main(["--symbol-graph-dir", graphs, "--source-root", self.root, "--module", "Fixture"])
        return status, buffer.getvalue()

    def test_an_undocumented_public_symbol_fails_the_check(self):
        graphs = fixture_graph(self.root)
        checked, undocumented, missing = check_symbols.check(graphs, self.root, ["Fixture"])
        self.assertEqual(missing, [])
        self.assertEqual(checked, 4)  # the struct, run(), start(), blank(): not hide, size, !=, Imported
        self.assertEqual([entry["title"] for entry in undocumented], ["Documented.start()", "Documented.blank()"])
        status, output = self.run_main(graphs)
        self.assertEqual(status, 1)
        self.assertIn("Modules/Fixture/Fixture.swift:11: Fixture: Method Documented.start() has no documentation comment",
                      output)
        self.assertIn("2 without a documentation comment", output)

    def test_documented_symbols_pass(self):
        status, output = self.run_main(fixture_graph(self.root, documented_only=True))
        self.assertEqual(status, 0, output)
        self.assertIn("2 public symbols in 1 modules, 0 without a documentation comment", output)

    def test_a_module_without_a_graph_is_an_error(self):
        graphs = fixture_graph(self.root)
        buffer = io.StringIO()
        with redirect_stdout(buffer):
            status = check_symbols.main(["--symbol-graph-dir", graphs, "--source-root", self.root,
                                         "--module", "Fixture", "--module", "Absent"])
        self.assertEqual(status, 2)


class GuideLinkTests(unittest.TestCase):
    def test_links_between_guides_become_documentation_links(self):
        guides = {"a": "# A\n", "b": "# B\n\n## The `rules` (for plugins)\n"}
        text = ("See [b](b.md), [its rules](b.md#the-rules-for-plugins), [here](#top), [the readme](../README.md), "
                "[curl](https://curl.se/x.md).\n```swift\nlet x = [1](2)\n```\n")
        rewritten = build_docs.rewrite_guide("a", text, guides)
        self.assertIn("[b](doc:b)", rewritten)
        self.assertIn("[its rules](doc:b#The-rules-for-plugins)", rewritten)
        self.assertIn("[here](doc:a#top)", rewritten)
        self.assertIn("the readme,", rewritten)
        self.assertIn("[curl](https://curl.se/x.md)", rewritten)
        self.assertIn("let x = [1](2)", rewritten)


@unittest.skipUnless(os.path.exists(DOCC), "docc is not installed")
class DocCLinkTests(unittest.TestCase):
    def setUp(self):
        self.root = tempfile.mkdtemp(prefix="docs-link-test.")
        self.addCleanup(shutil.rmtree, self.root)
        self.graphs = fixture_graph(self.root, documented_only=True)

    def convert(self, article):
        catalog = os.path.join(self.root, "Fixture.docc")
        os.makedirs(catalog, exist_ok=True)
        with open(os.path.join(catalog, "Fixture.md"), "w") as out:
            out.write("# ``Fixture``\n\nThe fixture.\n\n## Topics\n\n### Guides\n\n- <doc:guide>\n")
        guides = {"guide": article, "other": "# Other\n\nText.\n"}
        for name, text in guides.items():
            with open(os.path.join(catalog, name + ".md"), "w") as out:
                out.write(build_docs.rewrite_guide(name, text, guides))
        status, found = build_docs.run_docc(
            ["convert", catalog, "--additional-symbol-graph-dir", self.graphs, "--output-path",
             os.path.join(self.root, "out.doccarchive")], os.path.join(self.root, "diagnostics.json"))
        return status, [f["summary"] for f in found if f["severity"] in ("warning", "error")]

    def test_an_article_linking_to_a_missing_symbol_or_guide_is_reported(self):
        status, problems = self.convert(
            "# Guide\n\nUse ``Documented/run()``, not ``Documented/missing()``; see [the other](missing.md).\n")
        self.assertTrue(any("missing()" in p for p in problems), problems)
        self.assertTrue(any("missing" in p and "()" not in p for p in problems), problems)
        self.assertEqual(len(problems), 2, problems)

    def test_an_article_whose_links_resolve_passes(self):
        status, problems = self.convert("# Guide\n\nUse ``Documented/run()``; see [the other](other.md).\n")
        self.assertEqual(problems, [])
        self.assertEqual(status, 0)

    def test_an_unchanged_catalog_keeps_its_diagnostics_and_a_changed_one_is_converted_again(self):
        catalog = os.path.join(self.root, "Fixture.docc")
        os.makedirs(catalog, exist_ok=True)
        work = os.path.join(self.root, "work")
        arguments = ["convert", catalog, "--additional-symbol-graph-dir", self.graphs, "--output-path",
                     os.path.join(work, "archives", "Fixture.doccarchive")]

        def run(article):
            with open(os.path.join(catalog, "Fixture.md"), "w") as out:
                out.write("# ``Fixture``\n\nThe fixture.\n\n" + article)
            _, _, found, reused = build_docs.convert("Fixture", arguments, [self.graphs, catalog], [], work, True)
            return [f["summary"] for f in found if f["severity"] in ("warning", "error")], reused

        broken = "See ``Documented/missing()``.\n"
        problems, reused = run(broken)
        self.assertEqual((len(problems), reused), (1, False), problems)
        self.assertEqual(run(broken), (problems, True))
        self.assertEqual(run("See ``Documented/run()``.\n"), ([], False))
        self.assertEqual(run(broken), (problems, False))


if __name__ == "__main__":
    unittest.main()
