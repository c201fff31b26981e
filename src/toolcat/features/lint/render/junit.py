"""``--format junit``: JUnit XML for CI test reports.

One ``<testsuite>`` per file; one ``<testcase>`` per finding (classname = file, name = code,
tool and pointer): findings that reach ``--fail-on`` are ``<failure>``s, others pass with the
message in ``<system-out>``. A file without findings is one passing test case.
"""

from __future__ import annotations

import re
from xml.sax.saxutils import escape as _escape
from xml.sax.saxutils import quoteattr as _quoteattr

from toolcat.features.lint.engine import reaches
from toolcat.features.lint.render import Report

# what XML 1.0 cannot hold, even as a character reference: C0 controls but tab, LF and CR;
# lone surrogates; U+FFFE and U+FFFF. Each is written as a visible escape (\x00, \ud800).
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _xml_text(s: str) -> str:
    return _NOT_XML.sub(lambda m: f"\\x{ord(m.group(0)):02x}" if ord(m.group(0)) < 0x100
                        else f"\\u{ord(m.group(0)):04x}", s)


def escape(s: str) -> str:
    return _escape(_xml_text(s))


def quoteattr(s: str) -> str:
    return _quoteattr(_xml_text(s), {"\n": "&#10;", "\r": "&#13;", "\t": "&#9;"})


def render_junit(report: Report) -> str:
    by_file: dict[str, list] = {}
    for f in report.findings:
        by_file.setdefault(f.file, []).append(f)
    for file in report.sources:
        by_file.setdefault(file, [])
    suites = []
    total = failures = 0
    for file in sorted(by_file):
        cases = []
        nfail = 0
        for f in by_file[file]:
            where = f":{f.line}:{f.column}" if f.line is not None else ""
            name = " ".join(x for x in (f.code, f.tool, f.pointer) if x)
            body = f"{f.file}{where}: {f.severity} {f.code} {report.tagged(f)}"
            if reaches(f.severity, report.fail_on):
                nfail += 1
                cases.append(f"    <testcase classname={quoteattr(file)} name={quoteattr(name)}>"
                             f"<failure type={quoteattr(f.code)} message={quoteattr(report.tagged(f))}>"
                             f"{escape(body)}</failure></testcase>")
            else:
                cases.append(f"    <testcase classname={quoteattr(file)} name={quoteattr(name)}>"
                             f"<system-out>{escape(body)}</system-out></testcase>")
        if not cases:
            cases.append(f"    <testcase classname={quoteattr(file)} name=\"toolcat lint\"/>")
        total += len(cases)
        failures += nfail
        suites.append(f"  <testsuite name={quoteattr(file)} tests=\"{len(cases)}\" "
                      f"failures=\"{nfail}\" errors=\"0\" skipped=\"0\">\n"
                      + "\n".join(cases) + "\n  </testsuite>")
    head = (f'<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="toolcat lint" '
            f'tests="{total}" failures="{failures}" errors="0">\n')
    return head + "\n".join(suites) + ("\n" if suites else "") + "</testsuites>\n"
