"""Drive the live capture API in a process of its own, as a command does (until the CLI
options land): ``python driver.py [--timeout S] [-o DIR] [--server CMD]... [--url URL
[--header 'K: V']...] [--client NAME] [--client-config FILE]``.

Each server captured: ``<name>: <n> tools, <p> pages`` on stdout (and ``DIR/<name>.json``,
the capture file). Each failure: its one ``toolcat: error:`` line on stderr. Exit 0, or 2
when a server failed; Ctrl-C prints ``toolcat: interrupted`` and exits 130, as the CLI does.
With ``TOOLCAT_TEST_TIMINGS=FILE``, FILE gets the seconds spent importing the MCP SDK and
the seconds the whole capture took.
"""

from __future__ import annotations

import argparse
import os
import sys
import time


def main() -> int:
    from toolcat.errors import ToolcatError
    from toolcat.formats.live import capture, clients, spec

    ap = argparse.ArgumentParser()
    ap.add_argument("--server", action="append", default=[])
    ap.add_argument("--url", action="append", default=[])
    ap.add_argument("--header", action="append", default=[])
    ap.add_argument("--client")
    ap.add_argument("--client-config")
    ap.add_argument("--timeout", type=float, default=spec.DEFAULT_TIMEOUT)
    ap.add_argument("-o", dest="out")
    ap.add_argument("-v", dest="verbose", action="store_true")
    a = ap.parse_args()
    try:
        specs = [spec.from_command(c) for c in a.server]
        specs += [spec.from_url(u, a.header) for u in a.url]
        if a.client:
            specs += clients.read_client(a.client)
        if a.client_config:
            specs += clients.read_config_file(a.client_config, a.client)
        spec.unique_names(specs)
        t = time.perf_counter()
        outcomes = capture.capture(specs, timeout=a.timeout, verbose=a.verbose)
        if os.environ.get("TOOLCAT_TEST_TIMINGS") and capture.last_sdk_import_s is not None:
            with open(os.environ["TOOLCAT_TEST_TIMINGS"], "w") as f:
                f.write(f"{capture.last_sdk_import_s} {time.perf_counter() - t}\n")
    except ToolcatError as e:
        sys.stderr.write(e.render() + "\n")
        return 2
    except KeyboardInterrupt:
        sys.stderr.write("toolcat: interrupted\n")
        return 130
    failed = False
    for o in outcomes:
        if o.error is not None:
            failed = True
            sys.stderr.write(o.error.render() + "\n")
            continue
        c = o.capture
        sys.stdout.write(f"{o.spec.label}: {len(c.tools)} tools, {c.pages} pages\n")
        if a.out:
            with open(os.path.join(a.out, f"{o.spec.label}.json"), "wb") as f:
                f.write(capture.file_bytes(capture.document(c)))
    return 2 if failed else 0


if __name__ == "__main__":
    code = main()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
